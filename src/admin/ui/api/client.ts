// The dashboard's one way to the admin API: a call on the person's session cookie (same origin, with the
// session's CSRF token on every state-changing call) or, for deployments that still sign in with a pasted
// legacy token, with that token as a bearer token (never a cookie); JSON in and out, a refusal turned into an
// ApiError with the gateway's code and message, and a 401 ending the session. The calls themselves are in
// endpoints.ts and people-endpoints.ts.

import { forgetToken, storedToken } from "./token.js";

/** The session's CSRF token (from the sign-in answer or GET /admin/v1/me), kept in memory only. */
let csrfToken: string | null = null;

/** Remembers the session's CSRF token, sent as x-csrf-token with every state-changing call; null forgets it. */
export function rememberCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** A refusal by the gateway (its status, code and message for people), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait before trying again, when the gateway said (Retry-After: too many sign-in attempts). */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

let sessionEnded: ((error: ApiError) => void) | null = null;

/** Called when the session or the stored token is refused (401): the app goes back to the sign-in page. */
export function onSessionEnded(handler: (error: ApiError) => void): void {
  sessionEnded = handler;
}

interface Options {
  body?: unknown;
  /** Use this token instead of the stored one (signing in with a token); a 401 then does not end a session. */
  token?: string;
  /**
   * A call that needs no one signed in (the sign-in routes, one-time links, the first GET /me): its 401 is its
   * answer, not a session that ended.
   */
  anonymous?: boolean;
}

/** The headers and credentials of a call: the bearer token if there is one, else the session cookie. */
function credentialsOf(
  method: string,
  token: string | null,
): { headers: Record<string, string>; credentials: RequestCredentials } {
  if (token !== null) return { headers: { authorization: `Bearer ${token}` }, credentials: "omit" };
  const headers: Record<string, string> = {};
  if (method !== "GET" && csrfToken !== null) headers["x-csrf-token"] = csrfToken;
  return { headers, credentials: "same-origin" };
}

export async function call<T>(
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  path: string,
  options: Options = {},
): Promise<T> {
  const sent = credentialsOf(method, options.token ?? storedToken());
  const headers: Record<string, string> = { accept: "application/json", ...sent.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: "no-store",
      credentials: sent.credentials,
      redirect: "error",
    });
  } catch {
    throw new ApiError(0, "network_error", "network error");
  }
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text === "" ? null : JSON.parse(text);
  } catch {
    data = null;
  }
  if (!res.ok) throw refusal(res, data, options.token === undefined && options.anonymous !== true);
  return data as T;
}

/**
 * A refusal as an ApiError, from the gateway's error body when it sent one; a 401 on the session or the
 * stored token (`signedIn`) ends the session.
 */
function refusal(res: Response, data: unknown, signedIn: boolean): ApiError {
  const error = (data as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const failure = new ApiError(
    res.status,
    typeof error?.code === "string" ? error.code : `http_${res.status}`,
    typeof error?.message === "string" ? error.message : `HTTP ${res.status} ${res.statusText}`,
    retryAfterOf(res.headers.get("retry-after")),
  );
  if (res.status === 401 && signedIn) {
    forgetToken();
    rememberCsrfToken(null);
    sessionEnded?.(failure);
  }
  return failure;
}

/** Retry-After in seconds (the gateway sends whole seconds), or null when absent or unreadable. */
function retryAfterOf(header: string | null): number | null {
  return header !== null && /^\d+$/.test(header) ? Number(header) : null;
}

/** A query string of the values given (undefined ones left out), "" for none. */
export function queryOf(values: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

/**
 * Downloads a file of the admin API (a CSV export) under its own name: fetched with the session or the token
 * like every call (a link could not carry a token), then handed to the browser as a blob.
 */
export async function download(path: string, fallbackName: string): Promise<void> {
  const sent = credentialsOf("GET", storedToken());
  let res: Response;
  try {
    res = await fetch(path, {
      headers: sent.headers,
      cache: "no-store",
      credentials: sent.credentials,
      redirect: "error",
    });
  } catch {
    throw new ApiError(0, "network_error", "network error");
  }
  if (!res.ok) throw refusal(res, await res.json().catch(() => null), true);
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
