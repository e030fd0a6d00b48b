// The dashboard's one way to the admin API: a call with the stored token as a bearer token (never a cookie),
// JSON in and out, a refusal turned into an ApiError with the gateway's code and message, and a 401 on the
// stored token ending the session. The calls themselves are in endpoints.ts.

import { forgetToken, storedToken } from "./token.js";

/** A refusal by the gateway (its status, code and message for people), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

let sessionEnded: ((error: ApiError) => void) | null = null;

/** Called when the stored token is refused (401): the app goes back to the login form. */
export function onSessionEnded(handler: (error: ApiError) => void): void {
  sessionEnded = handler;
}

interface Options {
  body?: unknown;
  /** Use this token instead of the stored one (logging in); a 401 then does not end a session. */
  token?: string;
}

export async function call<T>(
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  path: string,
  options: Options = {},
): Promise<T> {
  const token = options.token ?? storedToken() ?? "";
  const headers: Record<string, string> = { accept: "application/json", authorization: `Bearer ${token}` };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: "no-store",
      credentials: "omit",
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
  if (!res.ok) throw refusal(res, data, options.token === undefined);
  return data as T;
}

/**
 * A refusal as an ApiError, from the gateway's error body when it sent one; a 401 on the stored token
 * (`stored`) ends the session.
 */
function refusal(res: Response, data: unknown, stored: boolean): ApiError {
  const error = (data as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const failure = new ApiError(
    res.status,
    typeof error?.code === "string" ? error.code : `http_${res.status}`,
    typeof error?.message === "string" ? error.message : `HTTP ${res.status} ${res.statusText}`,
  );
  if (res.status === 401 && stored) {
    forgetToken();
    sessionEnded?.(failure);
  }
  return failure;
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
 * Downloads a file of the admin API (a CSV export) under its own name: fetched with the token like every call
 * (a link could not carry it), then handed to the browser as a blob.
 */
export async function download(path: string, fallbackName: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(path, {
      headers: { authorization: `Bearer ${storedToken() ?? ""}` },
      cache: "no-store",
      credentials: "omit",
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
