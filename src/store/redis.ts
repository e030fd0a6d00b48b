// Redis connections. The gateway fails closed and fast when Redis is away: commands are not queued while
// disconnected, so a request gets 503 at once instead of hanging, and the settlement queue retries what
// must not be lost. The CLI, in contrast, waits briefly for its connection and then says clearly that it
// could not reach Redis.

import { Redis } from "ioredis";
import { GatewayError } from "../errors.js";
import { defineScripts, type RedisClient } from "./scripts.js";

export interface RedisSettings {
  url: string;
}

export type ConnectionRole = "gateway" | "cli";

export function createRedis(settings: RedisSettings, role: ConnectionRole): RedisClient {
  const client =
    role === "gateway"
      ? new Redis(settings.url, {
          enableOfflineQueue: false,
          // Scripts issued by concurrent requests in the same tick go to Redis in one write.
          enableAutoPipelining: true,
          maxRetriesPerRequest: 1,
          commandTimeout: 5000,
          // Reconnect quickly: every second without Redis is a second of 503s.
          retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 1000),
          lazyConnect: true,
        })
      : new Redis(settings.url, {
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          connectTimeout: 5000,
          retryStrategy: () => null,
        });
  // Connection problems surface through commands (503, CLI error); the event itself must not crash the process.
  client.on("error", () => {});
  defineScripts(client);
  return client;
}

/** Connects, or throws service_unavailable naming the server (without its password) and the real cause. */
export async function connectRedis(client: RedisClient, settings: RedisSettings): Promise<void> {
  // ioredis rejects connect() with a bare "Connection is closed."; the cause arrives as an error event.
  let cause: Error | undefined;
  const remember = (error: Error) => {
    cause ??= error;
  };
  client.on("error", remember);
  try {
    await client.connect();
  } catch (error) {
    const reason = (cause ?? (error as Error)).message;
    throw new GatewayError(
      "service_unavailable",
      `cannot connect to Redis at ${redactUrl(settings.url)}: ${reason}`,
      {
        cause: cause ?? error,
      },
    );
  } finally {
    client.off("error", remember);
  }
}

/** Closes a connection without leaving timers behind (ioredis arms one even for a socket that never opened). */
export function closeRedis(client: RedisClient): void {
  if (client.status !== "end") client.disconnect();
}

/** The URL with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable Redis URL)";
  }
}

/**
 * Whether an error means Redis could not be reached or did not answer (retry later), as opposed to Redis
 * answering with an error (a bug or misuse, which retrying would not fix).
 */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "ReplyError") return RETRYABLE_REPLY.test(error.message);
  return true;
}

/** Replies that mean "not now" (loading, failing over, busy) rather than "never". */
const RETRYABLE_REPLY = /^(LOADING|BUSY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY)\b/;

const REDIS_ERROR_NAMES = new Set([
  "ReplyError",
  "MaxRetriesPerRequestError",
  "ClusterAllFailedError",
  "AbortError",
]);
const REDIS_FAILURE =
  /Connection is closed|Stream isn't writeable|Command timed out|connect ETIMEDOUT|ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EHOSTUNREACH|sentinels are unreachable|refresh slots cache|Cluster isn't ready/;

/** Whether an error came from talking to Redis (as opposed to a bug of ours). */
export function isRedisError(error: unknown): boolean {
  return error instanceof Error && (REDIS_ERROR_NAMES.has(error.name) || REDIS_FAILURE.test(error.message));
}

/** The answer for a failure: our own errors as they are, Redis trouble as 503, anything else as 500. */
export function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (isRedisError(error)) return new GatewayError("service_unavailable", undefined, { cause: error });
  return new GatewayError("internal_error", undefined, { cause: error });
}
