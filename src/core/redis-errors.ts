// Which failures of a Redis command mean "Redis is away, retry later" and which mean "Redis refused it" or a
// bug of ours. Pure functions over ioredis' errors (by name and message, importing nothing), beside the error
// table that maps them (errors.ts: a Redis failure answers 503), so that every layer — the store's start-up,
// the settlement queue, the admission — can ask without depending on the connection.

/**
 * Replies that mean "not now" (loading, failing over, busy, a master cut off from its replicas with
 * min-replicas-to-write) rather than "never"; and a slot that moved, which ioredis follows by itself except for
 * a command sent to a Cluster's node directly (store/connection/replica-acks.ts).
 */
const RETRYABLE_REPLY = /^(LOADING|BUSY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY|NOREPLICAS|MOVED|ASK)\b/;

/**
 * ioredis' error classes for a command that never got its answer: MaxRetriesPerRequestError (reconnecting
 * took too many attempts), AbortError (the connection closed with the command in flight) and its subclass
 * InterruptError, ClusterAllFailedError (no node answered the slot refresh).
 */
const CONNECTION_ERROR_NAMES = new Set([
  "MaxRetriesPerRequestError",
  "AbortError",
  "InterruptError",
  "ClusterAllFailedError",
]);

/**
 * The plain Errors ioredis rejects a command with when it cannot reach Redis or Redis does not answer
 * (node_modules/ioredis/built: Redis.js, Command.js, cluster/index.js, connectors/).
 */
const CONNECTION_FAILURE = new RegExp(
  [
    "^Connection is closed\\.",
    "^Stream isn't writeable",
    "^Command timed out",
    "^connect ETIMEDOUT",
    "^Socket timeout\\.",
    "^Connection is aborted",
    "^Connection is discarded",
    "^Cluster isn't ready",
    "^Cluster is disconnect",
    "^None of startup nodes is available",
    "^Node is disconnected",
    "^Too many Cluster redirections",
    "^All sentinels are unreachable",
    "^Failed to refresh slots cache",
  ].join("|"),
);

/** Codes of the socket errors of a Redis that is down or out of reach. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
]);

/**
 * Whether an error means Redis could not be reached or did not answer, or answered "not now" (retry later),
 * as opposed to Redis refusing the command or a bug of ours (a TypeError, a wrong key count), which
 * retrying would not fix.
 */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "ReplyError") return RETRYABLE_REPLY.test(error.message);
  if (CONNECTION_ERROR_NAMES.has(error.name)) return true;
  const code = (error as { code?: unknown }).code;
  return (typeof code === "string" && CONNECTION_CODES.has(code)) || CONNECTION_FAILURE.test(error.message);
}

/** Whether an error came from talking to Redis (as opposed to a bug of ours). */
export function isRedisError(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === "ReplyError" || error.name === "ParserError" || isConnectionError(error))
  );
}

/**
 * Whether Redis refused a script for good: a ReplyError that is not "not now" — a Lua error (a nil in
 * arithmetic, a wrong type), an error the script raised itself, or a refusal of the server (OOM, an ACL).
 * Retrying does not fix it, and the feature the script serves fails until someone does.
 */
export function isScriptError(error: unknown): boolean {
  return error instanceof Error && error.name === "ReplyError" && !RETRYABLE_REPLY.test(error.message);
}
