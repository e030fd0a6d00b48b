// The admin API as the dashboard calls it. The token lives in sessionStorage only (gone with the tab, never
// in a URL, a cookie or localStorage) and is sent as a bearer token; a 401 on a stored token ends the
// session.

import type {
  Account,
  AccountAlerts,
  AccountUsage,
  AlertEvents,
  AuditLog,
  CreatedKey,
  CreatedWebhook,
  Key,
  Me,
  OperatorAlerts,
  Overview,
  RequestPage,
  TestResult,
  Usage,
} from "./types.js";
import type { CreateKeyBody, UpdateKeyBody } from "./validate.js";

export type * from "./types.js";
export { clientKeyView } from "./types.js";

const TOKEN_KEY = "tunnel-gateway.token";

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage disabled: there is nothing to forget.
  }
}

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

async function call<T>(
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
async function download(path: string, fallbackName: string): Promise<void> {
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

export interface RequestQuery {
  status?: string;
  model?: string;
  from?: string;
  to?: string;
  request_id?: string;
  offset?: number;
  limit?: number;
}

const enc = encodeURIComponent;
const account = (id: string) => `/admin/v1/accounts/${enc(id)}`;
const key = (accountId: string, keyId: string) => `${account(accountId)}/keys/${enc(keyId)}`;

export const api = {
  me: (token?: string) => call<Me>("GET", "/admin/v1/me", token === undefined ? {} : { token }),
  accounts: () => call<Account[]>("GET", "/admin/v1/accounts"),
  createAccount: (body: { id: string; name?: string; balance?: string }) =>
    call<Account>("POST", "/admin/v1/accounts", { body }),
  account: (id: string) => call<Account>("GET", account(id)),
  topUp: (id: string, amount: string) => call<Account>("POST", `${account(id)}/topups`, { body: { amount } }),
  accountAudit: (id: string, limit = 100) => call<AuditLog>("GET", `${account(id)}/audit?limit=${limit}`),
  audit: (limit = 100) => call<AuditLog>("GET", `/admin/v1/audit?limit=${limit}`),
  keys: (accountId: string) => call<Key[]>("GET", `${account(accountId)}/keys`),
  createKey: (accountId: string, body: CreateKeyBody) =>
    call<CreatedKey>("POST", `${account(accountId)}/keys`, { body }),
  key: (accountId: string, keyId: string) => call<Key>("GET", key(accountId, keyId)),
  updateKey: (accountId: string, keyId: string, body: UpdateKeyBody) =>
    call<Key>("PATCH", key(accountId, keyId), { body }),
  revokeKey: (accountId: string, keyId: string) => call<Key>("POST", `${key(accountId, keyId)}/revoke`),
  rotateKey: (accountId: string, keyId: string, grace: string) =>
    call<CreatedKey>("POST", `${key(accountId, keyId)}/rotate`, { body: { grace } }),
  disableKey: (accountId: string, keyId: string) => call<Key>("POST", `${key(accountId, keyId)}/disable`),
  enableKey: (accountId: string, keyId: string) => call<Key>("POST", `${key(accountId, keyId)}/enable`),
  usage: (accountId: string, keyId: string) => call<Usage>("GET", `${key(accountId, keyId)}/usage`),
  requestPage: (accountId: string, keyId: string, query: RequestQuery) =>
    call<RequestPage>("GET", `${key(accountId, keyId)}/requests${queryOf({ ...query })}`),
  accountUsage: (id: string, from?: string, to?: string) =>
    call<AccountUsage>("GET", `${account(id)}/usage${queryOf({ from, to })}`),
  downloadUsage: (id: string, from?: string, to?: string) =>
    download(`${account(id)}/usage.csv${queryOf({ from, to })}`, `${id}-usage.csv`),
  downloadRequests: (id: string, from?: string, to?: string) =>
    download(`${account(id)}/requests.csv${queryOf({ from, to })}`, `${id}-requests.csv`),
  overview: (query: { q?: string; sort?: string; offset?: number; limit?: number }) =>
    call<Overview>("GET", `/admin/v1/overview${queryOf({ ...query })}`),
  setKeyAlerts: (accountId: string, keyId: string, alertAt: number[] | null) =>
    call<Key>("PATCH", key(accountId, keyId), { body: { alert_at: alertAt } }),
  accountAlerts: (id: string) => call<AccountAlerts>("GET", `${account(id)}/alerts`),
  setLowBalance: (id: string, lowBalance: string | null) =>
    call<AccountAlerts>("PATCH", `${account(id)}/alerts`, { body: { low_balance: lowBalance } }),
  setWebhook: (id: string, url: string) =>
    call<CreatedWebhook>("PUT", `${account(id)}/webhook`, { body: { url } }),
  removeWebhook: (id: string) => call<{ removed: boolean }>("DELETE", `${account(id)}/webhook`),
  testWebhook: (id: string) => call<TestResult>("POST", `${account(id)}/webhook/test`),
  events: (id: string, limit = 50) => call<AlertEvents>("GET", `${account(id)}/events?limit=${limit}`),
  operatorAlerts: () => call<OperatorAlerts>("GET", "/admin/v1/alerts"),
  testOperatorWebhook: (webhookId: string) =>
    call<TestResult>("POST", `/admin/v1/alerts/webhooks/${enc(webhookId)}/test`),
};
