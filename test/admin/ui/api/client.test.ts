// The dashboard's calls to the admin API, as the browser would send them: the token from sessionStorage as
// a bearer token (never a cookie), ids percent-encoded into the path, JSON bodies, refusals turned into
// ApiError with the gateway's code and message, and a stored token refused with 401 ending the session.
// fetch and sessionStorage are the test's own stand-ins, recording what the page sends.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, onSessionEnded, rememberCsrfToken } from "../../../../src/admin/ui/api/client.js";
import { api } from "../../../../src/admin/ui/api/endpoints.js";
import { forgetToken, storedToken, storeToken } from "../../../../src/admin/ui/api/token.js";

interface Sent {
  url: string;
  init: RequestInit;
}

let sent: Sent[];
let answer: () => Response | Promise<Response>;
let storage: Map<string, string>;

beforeEach(() => {
  sent = [];
  answer = () => new Response("{}", { status: 200 });
  storage = new Map();
  vi.stubGlobal("sessionStorage", {
    getItem: (key: string) => storage.get(key) ?? null,
    setItem: (key: string, value: string) => void storage.set(key, value),
    removeItem: (key: string) => void storage.delete(key),
  });
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    return answer();
  });
  onSessionEnded(() => {});
});
afterEach(() => {
  vi.unstubAllGlobals();
});

function json(status: number, body: unknown, statusText = ""): Response {
  return new Response(JSON.stringify(body), {
    status,
    statusText,
    headers: { "content-type": "application/json" },
  });
}

async function failure(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

describe("requests", () => {
  it("send the stored token as a bearer token, without cookies, caching or redirects", async () => {
    storeToken("sk-tunnel-account-abc");
    answer = () => json(200, { role: "account", account_id: "acme", timezone: "UTC" });
    expect(await api.me()).toEqual({ role: "account", account_id: "acme", timezone: "UTC" });
    expect(sent).toEqual([
      {
        url: "/admin/v1/me",
        init: {
          method: "GET",
          headers: { accept: "application/json", authorization: "Bearer sk-tunnel-account-abc" },
          body: undefined,
          cache: "no-store",
          credentials: "omit",
          redirect: "error",
        },
      },
    ]);
  });

  it("send bodies as JSON, with their content type", async () => {
    storeToken("t");
    await api.topUp("acme", "12.5");
    await api.updateKey("acme", "key_a", { name: "renamed", budget: null });
    expect(
      sent.map((s) => [
        s.init.method,
        s.url,
        s.init.body,
        (s.init.headers as Record<string, string>)["content-type"],
      ]),
    ).toEqual([
      ["POST", "/admin/v1/accounts/acme/topups", '{"amount":"12.5"}', "application/json"],
      ["PATCH", "/admin/v1/accounts/acme/keys/key_a", '{"name":"renamed","budget":null}', "application/json"],
    ]);
  });

  it("go to each route, ids percent-encoded and limits in the query", async () => {
    storeToken("t");
    await api.accounts();
    await api.createAccount({ id: "new" });
    await api.account("a/b c");
    await api.accountAudit("acme");
    await api.accountAudit("acme", 5);
    await api.audit(20);
    await api.keys("acme");
    await api.createKey("acme", { name: "k" } as never);
    await api.key("acme", "key_?x");
    await api.revokeKey("acme", "key_a");
    await api.usage("acme", "key_a");
    await api.requestPage("acme", "key_a", { status: "error", model: "", offset: 25, limit: 25 });
    await api.accountUsage("acme");
    await api.accountUsage("acme", "2026-11-01", "2026-11-21");
    await api.overview({ q: "a b", sort: "spend", offset: 0, limit: 50 });
    expect(sent.map((s) => `${s.init.method} ${s.url}`)).toEqual([
      "GET /admin/v1/accounts",
      "POST /admin/v1/accounts",
      "GET /admin/v1/accounts/a%2Fb%20c",
      "GET /admin/v1/accounts/acme/audit?limit=100",
      "GET /admin/v1/accounts/acme/audit?limit=5",
      "GET /admin/v1/audit?limit=20",
      "GET /admin/v1/accounts/acme/keys",
      "POST /admin/v1/accounts/acme/keys",
      "GET /admin/v1/accounts/acme/keys/key_%3Fx",
      "POST /admin/v1/accounts/acme/keys/key_a/revoke",
      "GET /admin/v1/accounts/acme/keys/key_a/usage",
      "GET /admin/v1/accounts/acme/keys/key_a/requests?status=error&model=&offset=25&limit=25",
      "GET /admin/v1/accounts/acme/usage",
      "GET /admin/v1/accounts/acme/usage?from=2026-11-01&to=2026-11-21",
      "GET /admin/v1/overview?q=a+b&sort=spend&offset=0&limit=50",
    ]);
  });

  it("read an empty answer as null", async () => {
    answer = () => new Response(null, { status: 200 });
    expect(await api.accounts()).toBeNull();
  });
});

describe("refusals", () => {
  it("become ApiError with the gateway's status, code and message", async () => {
    storeToken("t");
    answer = () =>
      json(403, {
        error: {
          code: "forbidden",
          message: "Only the operator's admin token may do this.",
          type: "permission_error",
        },
      });
    const error = await failure(api.accounts());
    expect(error).toMatchObject({
      status: 403,
      code: "forbidden",
      message: "Only the operator's admin token may do this.",
    });
    expect(error.name).toBe("ApiError");
  });

  it("name the HTTP status when the answer is not the gateway's JSON", async () => {
    answer = () => new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" });
    expect(await failure(api.accounts())).toMatchObject({
      status: 502,
      code: "http_502",
      message: "HTTP 502 Bad Gateway",
    });
  });

  it("are a network error, status 0, when the gateway cannot be reached", async () => {
    answer = () => Promise.reject(new TypeError("Failed to fetch"));
    expect(await failure(api.accounts())).toMatchObject({ status: 0, code: "network_error" });
  });
});

describe("the session", () => {
  it("ends when the stored token is refused with 401: the token is forgotten and the app told", async () => {
    storeToken("revoked-token");
    const ended: ApiError[] = [];
    onSessionEnded((error) => ended.push(error));
    answer = () => json(401, { error: { code: "admin_unauthorized", message: "Unknown token." } });
    await failure(api.keys("acme"));
    expect(storedToken()).toBeNull();
    expect(ended.map((e) => e.code)).toEqual(["admin_unauthorized"]);
  });

  it("does not end when a token being tried at login is refused, nor on other refusals", async () => {
    storeToken("current");
    const ended: ApiError[] = [];
    onSessionEnded((error) => ended.push(error));
    answer = () => json(401, { error: { code: "admin_unauthorized", message: "Unknown token." } });
    await failure(api.me("typed-at-login"));
    expect((sent[0]!.init.headers as Record<string, string>).authorization).toBe("Bearer typed-at-login");
    answer = () => json(403, { error: { code: "forbidden", message: "no" } });
    await failure(api.accounts());
    expect(storedToken()).toBe("current");
    expect(ended).toEqual([]);
  });

  it("keeps the token in sessionStorage only, and copes with storage being disabled", () => {
    storeToken("abc");
    expect([...storage.values()]).toEqual(["abc"]);
    forgetToken();
    expect(storedToken()).toBeNull();
    vi.stubGlobal("sessionStorage", {
      getItem: () => {
        throw new Error("SecurityError");
      },
      removeItem: () => {
        throw new Error("SecurityError");
      },
    });
    expect(storedToken()).toBeNull();
    expect(() => forgetToken()).not.toThrow();
  });
});

describe("the session cookie", () => {
  it("goes with every call when no token is stored, and state-changing calls carry the CSRF token", async () => {
    rememberCsrfToken("csrf-of-the-session");
    await api.me();
    await api.revokeKey("acme", "key_a");
    expect(sent.map((s) => [s.init.method, s.init.credentials, s.init.headers])).toEqual([
      ["GET", "same-origin", { accept: "application/json" }],
      ["POST", "same-origin", { accept: "application/json", "x-csrf-token": "csrf-of-the-session" }],
    ]);
  });

  it("ends the session on a 401, but not on a sign-in's own refusal", async () => {
    const ended: string[] = [];
    onSessionEnded((error) => ended.push(error.code));
    answer = () => json(401, { error: { code: "sign_in_failed", message: "wrong" } });
    expect((await failure(api.signInWithPassword("a@example.com", "x"))).code).toBe("sign_in_failed");
    expect(ended).toEqual([]);
    answer = () => json(401, { error: { code: "session_expired", message: "ended" } });
    await failure(api.keys("acme"));
    expect(ended).toEqual(["session_expired"]);
  });

  it("reads the wait of a refusal from Retry-After", async () => {
    answer = () =>
      new Response(JSON.stringify({ error: { code: "too_many_attempts", message: "wait" } }), {
        status: 429,
        headers: { "retry-after": "120" },
      });
    expect((await failure(api.signInWithPassword("a@example.com", "x"))).retryAfter).toBe(120);
  });
});
