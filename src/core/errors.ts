// Every error the gateway, the CLI and the admin API can answer with: its code, HTTP status, the OpenAI
// error `type` clients already switch on, and a default message a person can act on. This table is the only
// place a status or a code is spelled; a test checks the table in docs/endpoints-and-errors.md against it.

import { isRedisError, isScriptError } from "./redis-errors.js";

export const ERRORS = {
  // Authentication (public port)
  missing_api_key: {
    status: 401,
    type: "authentication_error",
    message:
      "No API key provided. Send it as 'Authorization: Bearer sk-tunnel-…' (or 'x-api-key: sk-tunnel-…').",
  },
  invalid_api_key: {
    status: 401,
    type: "authentication_error",
    message: "Invalid API key. A key is 'sk-tunnel-' followed by 64 hexadecimal characters.",
  },
  key_revoked: {
    status: 401,
    type: "authentication_error",
    message: "This API key has been revoked. Create a new key.",
  },
  key_expired: {
    status: 401,
    type: "authentication_error",
    message: "This API key has expired. Create a new key.",
  },
  key_rotated: {
    status: 401,
    type: "authentication_error",
    message: "This key was replaced by a new value; use the new one.",
  },
  admin_unauthorized: {
    status: 401,
    type: "authentication_error",
    message: "Send the admin token or an account token as 'Authorization: Bearer …'.",
  },
  // Signing in and sessions (admin listener)
  sign_in_failed: {
    status: 401,
    type: "authentication_error",
    message: "The e-mail or the password is wrong.",
  },
  session_expired: {
    status: 401,
    type: "authentication_error",
    message: "Your session has ended (signed out, timed out or revoked). Sign in again.",
  },
  user_disabled: {
    status: 403,
    type: "permission_error",
    message: "This user is disabled. Ask an operator to enable it.",
  },
  csrf_refused: {
    status: 403,
    type: "permission_error",
    message:
      "Refused as a possible cross-site request: send it from the dashboard's own origin with its x-csrf-token header.",
  },
  too_many_attempts: {
    status: 429,
    type: "rate_limit_error",
    message: "Too many failed sign-ins. Retry after the time in Retry-After.",
  },
  invitation_invalid: {
    status: 400,
    type: "invalid_request_error",
    message:
      "This invitation link is not valid: it was used already, revoked or has expired. Ask for a new one.",
  },
  password_link_invalid: {
    status: 400,
    type: "invalid_request_error",
    message: "This set-password link is not valid: it was used already or has expired. Ask for a new one.",
  },
  weak_password: {
    status: 400,
    type: "invalid_request_error",
    message: "This password is too weak.",
  },
  provider_required: {
    status: 403,
    type: "permission_error",
    message:
      "This e-mail belongs to the company's identity provider: sign in with it to accept the invitation, not with a password.",
  },
  provider_link_required: {
    status: 409,
    type: "invalid_request_error",
    message:
      "A user with this e-mail already signs in another way. Sign in as before, then link this identity provider from My account (or ask an operator to allow the link).",
  },
  identity_provider_unavailable: {
    status: 503,
    type: "service_unavailable",
    message: "The identity provider cannot be reached right now. Retry shortly.",
  },
  // SCIM provisioning (admin listener, /scim/v2)
  scim_unauthorized: {
    status: 401,
    type: "authentication_error",
    message: "Send a SCIM token (sk-tunnel-scim-…) as 'Authorization: Bearer …'.",
  },
  scim_token_not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "No such SCIM token.",
  },
  scim_group_not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "No such group.",
  },
  scim_group_exists: {
    status: 409,
    type: "invalid_request_error",
    message: "A group with this displayName or externalId already exists.",
  },
  scim_conflict: {
    status: 409,
    type: "invalid_request_error",
    message: "Another user already has this externalId.",
  },
  // Money and permissions
  insufficient_balance: {
    status: 402,
    type: "insufficient_quota",
    message: "The account balance is used up. Top up the account to continue.",
  },
  budget_exceeded: {
    status: 403,
    type: "insufficient_quota",
    message: "This key's budget for the current period is used up.",
  },
  model_not_allowed: {
    status: 403,
    type: "permission_error",
    message: "This key may not use the requested model.",
  },
  forbidden: {
    status: 403,
    type: "permission_error",
    message: "This credential may not do that.",
  },
  key_disabled: {
    status: 403,
    type: "permission_error",
    message: "This key is disabled for now. Ask the account's owner to enable it.",
  },
  path_not_allowed: {
    status: 403,
    type: "permission_error",
    message: "This path is a management endpoint of the model server; API keys may not use it.",
  },
  https_required: {
    status: 403,
    type: "permission_error",
    message: "This gateway only accepts HTTPS. Resend the request over https://.",
  },
  // Requests
  invalid_request: {
    status: 400,
    type: "invalid_request_error",
    message: "The request is invalid.",
  },
  not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "Nothing is served at this path.",
  },
  method_not_allowed: {
    status: 405,
    type: "invalid_request_error",
    message: "This method is not allowed on this path.",
  },
  payload_too_large: {
    status: 413,
    type: "invalid_request_error",
    message: "The request body is too large.",
  },
  headers_too_large: {
    status: 431,
    type: "invalid_request_error",
    message: "The request's headers are too large.",
  },
  // Rate and concurrency limits (public port)
  rate_limit_exceeded: {
    status: 429,
    type: "rate_limit_error",
    message: "This key's rate limit is reached. Retry after the time in Retry-After.",
  },
  concurrency_limit_exceeded: {
    status: 429,
    type: "rate_limit_error",
    message: "This key has as many requests in flight as it may. Retry when one has finished.",
  },
  server_busy: {
    status: 429,
    type: "rate_limit_error",
    message:
      "The model server is busy and this request could not get its turn in time. Retry after the time in Retry-After.",
  },
  // Management (CLI and admin API)
  account_not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "No such account.",
  },
  key_not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "No such key.",
  },
  // What callers see of their own requests (public port)
  request_not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "No request with this id among this key's recent requests.",
  },
  user_not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "No such user.",
  },
  member_not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "This person is not a member of this account.",
  },
  invitation_not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "No such invitation.",
  },
  token_not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "No such API token.",
  },
  session_not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "No such session.",
  },
  provider_not_found: {
    status: 404,
    type: "invalid_request_error",
    message: "No identity provider with this id is configured.",
  },
  user_exists: {
    status: 409,
    type: "invalid_request_error",
    message: "A user with this e-mail already exists.",
  },
  account_exists: {
    status: 409,
    type: "invalid_request_error",
    message: "An account with this id already exists.",
  },
  // Upstream and infrastructure
  upstream_unavailable: {
    status: 502,
    type: "upstream_error",
    message: "The model server could not be reached.",
  },
  upstream_timeout: {
    status: 504,
    type: "upstream_error",
    message: "The model server did not answer in time.",
  },
  service_unavailable: {
    status: 503,
    type: "service_unavailable",
    message: "The gateway cannot reach its database right now. Retry shortly.",
  },
  redis_refused: {
    status: 500,
    type: "api_error",
    message: "Redis refused a write the change needs; nothing of the change was kept.",
  },
  internal_error: {
    status: 500,
    type: "api_error",
    message: "The gateway hit an internal error.",
  },
} as const satisfies Record<string, { status: number; type: string; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** Seconds a client should wait before retrying when Redis is unreachable. */
export const RETRY_AFTER_SECONDS = 1;

/** An expected failure that maps to one row of the error table. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  /** Milliseconds the client should wait before retrying (a rate limit), for Retry-After. */
  readonly retryAfterMs: number | undefined;
  /**
   * Facts a program can act on, beside the message, in the error object of the body: budget_exceeded's
   * `window` ({scope: "key" | "account", period}), the window that refused.
   */
  readonly fields: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options?: { cause?: unknown; retryAfterMs?: number; fields?: Record<string, unknown> },
  ) {
    super(message ?? ERRORS[code].message, options);
    this.name = "GatewayError";
    this.code = code;
    this.status = ERRORS[code].status;
    this.type = ERRORS[code].type;
    this.retryAfterMs = options?.retryAfterMs;
    this.fields = options?.fields;
  }
}

/**
 * The answer for any failure: our own errors as they are, Redis being away or refusing as 503 (retry), and
 * anything else — a bug — as 500.
 */
export function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (isRedisError(error)) return new GatewayError("service_unavailable", undefined, { cause: error });
  return new GatewayError("internal_error", undefined, { cause: error });
}

/**
 * A creation's refusal by Redis itself — an ACL that may not write one of its keys (NOPERM), a key of the
 * wrong type in the way (WRONGTYPE), out of memory — as `redis_refused` naming what was being written and
 * Redis' reply, once the creation has been undone; anything else (our own errors, Redis out of reach) as it
 * is. A 503 "cannot reach its database" would send an operator looking for an outage that is not there.
 */
export function redisRefusal(error: unknown, what: string): unknown {
  if (!isScriptError(error)) return error;
  return new GatewayError(
    "redis_refused",
    `Redis refused ${what}: ${(error as Error).message.split(" script: ")[0]}. Nothing of it was kept.`,
    { cause: error },
  );
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}

/** How an error body is shaped: as OpenAI's API answers, or as Anthropic's (on /v1/messages paths). */
export type ErrorFormat = "openai" | "anthropic";

/**
 * The JSON body clients parse: OpenAI's `{"error": {"message", "type", "code"}}`, or Anthropic's
 * `{"type": "error", "error": {"type", "message"}}` with Anthropic's type for the status (its SDKs map
 * statuses to exception classes themselves) and our code alongside, for people reading it.
 */
export function errorBody(error: GatewayError, format: ErrorFormat = "openai"): string {
  if (format === "anthropic") {
    return JSON.stringify({
      type: "error",
      error: { type: anthropicType(error.status), message: error.message, code: error.code, ...error.fields },
    });
  }
  return JSON.stringify({
    error: { message: error.message, type: error.type, code: error.code, ...error.fields },
  });
}

/** Anthropic's error type for a status (docs.anthropic.com, "Errors"). */
function anthropicType(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
    case 529:
      return "overloaded_error";
    case 504:
      return "timeout_error";
    default:
      return "api_error";
  }
}
