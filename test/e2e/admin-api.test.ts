// The admin API over real HTTP: every route with the admin token and with an account token, the
// cross-account denial on every route, bad input refused with nothing written, the audit log, the recent
// request log and its privacy switch, and the OpenAPI document.

import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/admin/openapi.js";
import { ROUTES } from "../../src/admin/routes.js";
import { PERMISSIONS } from "../../src/identity/permissions.js";
import { ACTOR } from "../helpers/actor.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

const ADMIN = "admin-token-0123456789";
let t: TestGateway;
let upstream: StubUpstream;
let acmeToken: string;
let otherToken: string;

beforeEach(async () => {
  upstream = await startStubUpstream();
  t = await startTestGateway({
    upstreamUrl: upstream.url,
    config: { admin: { token: ADMIN }, pricing: { default: { input: 1000, output: 2000 } } },
  });
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
  await t.store.accountService.create({ id: "other", balance: "50" }, ACTOR);
  acmeToken = (await t.store.accountService.createToken("acme", ACTOR)).token;
  otherToken = (await t.store.accountService.createToken("other", ACTOR)).token;
});

afterEach(async () => {
  await t.close();
  await upstream.close();
});

function api(path: string, token: string | null, init: { method?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${t.gateway.adminUrl}${path}`, {
    method: init.method ?? "GET",
    headers,
    body:
      init.body === undefined
        ? undefined
        : typeof init.body === "string"
          ? init.body
          : JSON.stringify(init.body),
  });
}

async function ok(path: string, token: string, init: { method?: string; body?: unknown } = {}, status = 200) {
  const res = await api(path, token, init);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body;
}

async function refused(
  path: string,
  token: string | null,
  init: { method?: string; body?: unknown },
  status: number,
  code: string,
) {
  const res = await api(path, token, init);
  const body = await json(res);
  expect(res.status, `${init.method ?? "GET"} ${path}: ${JSON.stringify(body)}`).toBe(status);
  expect(body.error.code).toBe(code);
  return body.error.message as string;
}

describe("the admin listener", () => {
  it("is disabled without an admin token or a way to sign in, and separate from the public port", async () => {
    const plain = await startTestGateway();
    try {
      expect(plain.gateway.adminUrl).toBeNull();
      expect(plain.logs.some((line) => String(line.msg).includes("admin API and dashboard disabled"))).toBe(
        true,
      );
    } finally {
      await plain.close();
    }
    expect(new URL(t.gateway.adminUrl as string).port).not.toBe(new URL(t.url).port);
    // The public port knows nothing of the admin API: the path is forwarded (and needs an API key).
    expect((await t.fetch("/admin/v1/me", { headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(
      401,
    );
  });

  it("refuses a missing or unknown credential with 401 admin_unauthorized", async () => {
    await refused("/admin/v1/me", null, {}, 401, "admin_unauthorized");
    expect(await refused("/admin/v1/me", "not-a-token-0123456789", {}, 401, "admin_unauthorized")).toMatch(
      /Unknown token/,
    );
    const key = await t.newKey({ accountId: "acme" });
    await refused("/admin/v1/me", key.value, {}, 401, "admin_unauthorized");
  });

  it("sends security headers", async () => {
    const res = await api("/admin/v1/me", ADMIN);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });

  it("answers unknown routes with 404 and wrong methods with 405", async () => {
    await refused("/admin/v1/nothing", ADMIN, {}, 404, "not_found");
    const res = await api("/admin/v1/accounts/acme", ADMIN, { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
  });
});

describe("accounts", () => {
  it("are listed, created, shown and topped up by the operator", async () => {
    expect(await ok("/admin/v1/me", ADMIN)).toMatchObject({
      role: "admin",
      account_id: null,
      timezone: "UTC",
      operator_role: "operator",
    });
    const listed = await ok("/admin/v1/accounts", ADMIN);
    expect(listed.map((a: { id: string }) => a.id).sort()).toEqual(["acme", "other"]);
    expect(listed.find((a: { id: string }) => a.id === "acme")).toMatchObject({
      balance: 100,
      currency: "RUB",
      token: { hint: acmeToken.slice(-4) },
    });
    expect(
      await ok("/admin/v1/accounts", ADMIN, { method: "POST", body: { id: "new", balance: 5 } }, 201),
    ).toMatchObject({
      id: "new",
      name: "new",
      balance: 5,
      token: null,
    });
    expect(
      await ok("/admin/v1/accounts/acme/topups", ADMIN, { method: "POST", body: { amount: "0.5" } }),
    ).toMatchObject({
      balance: 100.5,
    });
    expect(await ok("/admin/v1/accounts/acme", ADMIN)).toMatchObject({ balance: 100.5, name: "Acme" });
  });

  it("are seen by an account token only for its own account, and never created or topped up with it", async () => {
    expect(await ok("/admin/v1/me", acmeToken)).toMatchObject({
      role: "account",
      account_id: "acme",
      timezone: "UTC",
      memberships: [{ account_id: "acme", role: "owner" }],
    });
    expect((await ok("/admin/v1/accounts", acmeToken)).map((a: { id: string }) => a.id)).toEqual(["acme"]);
    await refused(
      "/admin/v1/accounts",
      acmeToken,
      { method: "POST", body: { id: "mine" } },
      403,
      "forbidden",
    );
    await refused(
      "/admin/v1/accounts/acme/topups",
      acmeToken,
      { method: "POST", body: { amount: 1 } },
      403,
      "forbidden",
    );
    expect((await t.store.accounts.require("acme")).balance).toBe(100_000_000);
    expect(await t.store.accounts.get("mine")).toBeNull();
  });
});

describe("keys", () => {
  it("are created with every option, shown once, listed, changed and revoked by the account's owner", async () => {
    const created = await ok(
      "/admin/v1/accounts/acme/keys",
      acmeToken,
      {
        method: "POST",
        body: {
          name: "prod",
          budget: 10,
          period: "week",
          ttl: "30d",
          models: ["demo-small"],
          log_bodies: false,
        },
      },
      201,
    );
    expect(created).toMatchObject({
      name: "prod",
      account_id: "acme",
      state: "active",
      allowed_models: ["demo-small"],
      log_bodies: false,
      period: "week",
      budgets: [{ period: "week", amount: 10, spent: 0, remaining: 10 }],
      revoked_at: null,
    });
    expect(created.key).toMatch(/^sk-tunnel-[0-9a-f]{64}$/);
    expect(created.hint).toBe(created.key.slice(-4));

    const shown = await ok(`/admin/v1/accounts/acme/keys/${created.id}`, acmeToken);
    expect(shown.key).toBeUndefined();
    expect(JSON.stringify(await ok("/admin/v1/accounts/acme/keys", acmeToken))).not.toContain(created.key);

    const changed = await ok(`/admin/v1/accounts/acme/keys/${created.id}`, acmeToken, {
      method: "PATCH",
      body: { name: "production", budget: null, models: null, log_bodies: true },
    });
    expect(changed).toMatchObject({
      name: "production",
      budget: null,
      allowed_models: null,
      log_bodies: true,
    });

    const revoked = await ok(`/admin/v1/accounts/acme/keys/${created.id}/revoke`, acmeToken, {
      method: "POST",
    });
    expect(revoked).toMatchObject({ state: "revoked", revoked_at: expect.any(String) });
    const res = await t.fetch("/v1/key", { key: created.key });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("key_revoked");
    await refused(
      `/admin/v1/accounts/acme/keys/${created.id}`,
      acmeToken,
      { method: "PATCH", body: { name: "x" } },
      400,
      "invalid_request",
    );
  });

  it("carry a changed period's spending over from the daily usage", async () => {
    const key = await t.newKey({ accountId: "acme", budget: "10", period: "month" });
    await (await chat(key.value)).text();
    await t.gateway.settled();
    const before = await ok(`/admin/v1/accounts/acme/keys/${key.id}`, acmeToken);
    expect(before.budgets[0].spent).toBeGreaterThan(0);
    const after = await ok(`/admin/v1/accounts/acme/keys/${key.id}`, acmeToken, {
      method: "PATCH",
      body: { period: "day" },
    });
    expect(after.budgets).toMatchObject([{ period: "day", spent: before.budgets[0].spent }]);
  });

  it("are refused at zero balance and with bad input, naming the field and writing nothing", async () => {
    await t.store.accountService.create({ id: "broke", balance: "0" }, ACTOR);
    await refused(
      "/admin/v1/accounts/broke/keys",
      ADMIN,
      { method: "POST", body: { name: "k" } },
      402,
      "insufficient_balance",
    );
    const cases: [unknown, RegExp][] = [
      [{ name: "k", ttl: "14m" }, /at least 15 minutes/],
      [{ name: "k", budget: -1 }, /budget must be a positive amount/],
      [{ name: "k", budget: "1e3" }, /budget must be a positive amount/],
      [{ name: "k", period: "day" }, /period is only meaningful with a budget/],
      [{ name: "k", unknown: 1 }, /unknown field unknown/],
      [{ name: 5 }, /name: .*string/],
      [{ name: "k", models: "demo" }, /models: .*array/],
      [{ name: "k", log_bodies: "no" }, /log_bodies: .*boolean/],
      [{ name: "k", rpm: 0 }, /rpm must be a whole number of requests per minute from 1 to 1000000; got 0/],
      [{ name: "k", tpm: 2.5 }, /tpm must be a whole number/],
      [{ name: "k", max_parallel: -3 }, /max_parallel must be a whole number/],
      [{ name: "k", rpm: "10" }, /rpm: .*number/],
      [{}, /name: .*/],
      ["not json", /not valid JSON/],
    ];
    for (const [body, message] of cases) {
      expect(
        await refused(
          "/admin/v1/accounts/acme/keys",
          acmeToken,
          { method: "POST", body },
          400,
          "invalid_request",
        ),
      ).toMatch(message);
    }
    expect(await t.store.keys.list("acme")).toEqual([]);
    expect(await t.store.keys.list("broke")).toEqual([]);
    const topUps: [unknown, RegExp][] = [
      [{ amount: -5 }, /positive amount/],
      [{ amount: 0 }, /positive amount/],
      [{ amount: "12.3456789" }, /at most 6 decimals/],
      [{}, /amount: /],
    ];
    for (const [body, message] of topUps) {
      expect(
        await refused(
          "/admin/v1/accounts/acme/topups",
          ADMIN,
          { method: "POST", body },
          400,
          "invalid_request",
        ),
      ).toMatch(message);
    }
    expect((await t.store.accounts.require("acme")).balance).toBe(100_000_000);
    const { record } = await t.store.keyService.create({ accountId: "acme", name: "k", rpm: 5 }, ACTOR);
    const written = await t.store.allKeys();
    const path = `/admin/v1/accounts/acme/keys/${record.id}`;
    for (const [route, body, message] of [
      ["/rotate", { grace: "8d" }, /grace must be at most 7 days/],
      ["/rotate", { grace: 3600 }, /grace: .*string/],
      ["/rotate", { grace: "1h", extra: 1 }, /unknown field extra/],
      ["", { rpm: 0 }, /rpm must be a whole number/],
      ["", { max_parallel: 1.5 }, /max_parallel must be a whole number/],
    ] as const) {
      const method = route === "" ? "PATCH" : "POST";
      expect(await refused(path + route, acmeToken, { method, body }, 400, "invalid_request")).toMatch(
        message,
      );
    }
    expect(await t.store.allKeys()).toEqual(written);
    expect((await t.store.keyService.show(record.id)).limits.rpm).toBe(5);
    await refused("/admin/v1/accounts/BAD%20ID", ADMIN, {}, 400, "invalid_request");
    await refused("/admin/v1/accounts/acme/keys/not-a-key", acmeToken, {}, 400, "invalid_request");
    await refused("/admin/v1/accounts/ghost", ADMIN, {}, 404, "account_not_found");
    await refused(
      "/admin/v1/accounts/acme/keys/key_00000000000000000000",
      acmeToken,
      {},
      404,
      "key_not_found",
    );
    await refused("/admin/v1/accounts/acme/keys?x=1", acmeToken, {}, 400, "invalid_request");
    const res = await api("/admin/v1/accounts/acme/keys", acmeToken, { method: "POST", body: "{}" });
    expect(res.status).toBe(400); // a body must be sent as JSON
  });

  it("of another account look absent through this account's path", async () => {
    const theirs = await t.newKey({ accountId: "other" });
    await refused(`/admin/v1/accounts/acme/keys/${theirs.id}`, ADMIN, {}, 404, "key_not_found");
  });
});

describe("an account token on another account's data", () => {
  it("is refused with 403 forbidden on every route that names an account, and changes nothing", async () => {
    const theirs = await t.newKey({ accountId: "other", budget: "5" });
    const params: Record<string, string> = { accountId: "other", keyId: theirs.id };
    const bodies: Record<string, unknown> = {
      createAccount: { id: "x" },
      topUpAccount: { amount: 1 },
      createKey: { name: "stolen" },
      updateKey: { name: "stolen" },
    };
    const named = ROUTES.filter((route) => route.path.includes("{accountId}"));
    expect(named.length).toBeGreaterThanOrEqual(9);
    for (const route of named) {
      const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => params[name] as string);
      const message = await refused(
        path,
        acmeToken,
        { method: route.method, body: bodies[route.operationId] },
        403,
        "forbidden",
      );
      expect(message).toMatch(/belongs to account acme and cannot access account other/);
    }
    // Routes for the operators alone.
    for (const route of ROUTES.filter(
      (r) =>
        PERMISSIONS[r.action].roles.every((role) => role.startsWith("operator")) &&
        PERMISSIONS[r.action].roles.length > 0,
    )) {
      await refused(
        route.path.replace("{accountId}", "acme"),
        acmeToken,
        { method: route.method, body: bodies[route.operationId] },
        403,
        "forbidden",
      );
    }
    const key = await t.store.keys.get({ accountId: "other", keyId: theirs.id });
    expect(key).toMatchObject({ name: "test key", revokedAt: null });
    expect(await t.store.keys.list("other")).toHaveLength(1);
    expect((await t.store.accounts.require("other")).balance).toBe(50_000_000);
    // The other account's own token works there.
    await ok(`/admin/v1/accounts/other/keys/${theirs.id}`, otherToken);
  });

  it("loses access the moment the token is revoked or replaced", async () => {
    await ok("/admin/v1/me", acmeToken);
    const { token: fresh } = await t.store.accountService.createToken("acme", ACTOR);
    await refused("/admin/v1/me", acmeToken, {}, 401, "admin_unauthorized");
    await ok("/admin/v1/me", fresh);
    await t.store.accountService.revokeToken("acme", ACTOR);
    await refused("/admin/v1/me", fresh, {}, 401, "admin_unauthorized");
  });
});

function chat(key: string, content = "one two three") {
  return t.fetch("/v1/chat/completions", {
    method: "POST",
    key,
    body: JSON.stringify({ model: "demo-small", max_tokens: 4, messages: [{ role: "user", content }] }),
  });
}

describe("usage, recent requests and the audit log", () => {
  it("show a key's usage per day and its recent requests, with bodies only while log_bodies is on", async () => {
    const key = await t.newKey({ accountId: "acme" });
    await (await chat(key.value, "with bodies please")).text();
    await t.gateway.settled();
    await ok(`/admin/v1/accounts/acme/keys/${key.id}`, acmeToken, {
      method: "PATCH",
      body: { log_bodies: false },
    });
    await (await chat(key.value, "no bodies now")).text();
    await t.gateway.settled();

    const usage = await ok(`/admin/v1/accounts/acme/keys/${key.id}/usage`, acmeToken);
    expect(usage.days).toHaveLength(30);
    const today = usage.days.at(-1);
    expect(today).toMatchObject({
      date: "2026-11-21",
      requests: 2,
      prompt_tokens: 6,
      completion_tokens: 8,
      errors: 0,
    });
    expect(today.cost).toBe(0.022);
    expect(today.p95_latency_ms).toBeGreaterThan(0);
    expect(usage.days[0]).toMatchObject({ requests: 0, avg_latency_ms: null, p95_latency_ms: null });
    const range = await ok(
      `/admin/v1/accounts/acme/keys/${key.id}/usage?from=2026-11-20&to=2026-11-21`,
      acmeToken,
    );
    expect(range.days.map((d: { date: string }) => d.date)).toEqual(["2026-11-20", "2026-11-21"]);
    await refused(
      `/admin/v1/accounts/acme/keys/${key.id}/usage?from=2026-11-22&to=2026-11-21`,
      acmeToken,
      {},
      400,
      "invalid_request",
    );
    await refused(
      `/admin/v1/accounts/acme/keys/${key.id}/usage?from=2025-01-01`,
      acmeToken,
      {},
      400,
      "invalid_request",
    );

    const { requests } = await ok(`/admin/v1/accounts/acme/keys/${key.id}/requests?limit=10`, acmeToken);
    expect(requests).toHaveLength(2);
    const [latest, earlier] = requests;
    expect(latest).toMatchObject({
      path: "/v1/chat/completions",
      model: "demo-small",
      status: 200,
      prompt_tokens: 3,
    });
    expect(latest.request_body).toBeUndefined();
    expect(JSON.stringify(latest)).not.toContain("no bodies now");
    expect(earlier.request_body).toContain("with bodies please");
    expect(earlier.response_body).toContain("chat.completion");
  });

  it("record who changed what, for the account and for the operator", async () => {
    const created = await ok(
      "/admin/v1/accounts/acme/keys",
      acmeToken,
      { method: "POST", body: { name: "k1", budget: 3 } },
      201,
    );
    await ok(`/admin/v1/accounts/acme/keys/${created.id}/revoke`, ADMIN, { method: "POST" });
    await ok("/admin/v1/accounts/acme/topups", ADMIN, { method: "POST", body: { amount: 7 } });

    const { entries } = await ok("/admin/v1/accounts/acme/audit", acmeToken);
    expect(entries.map((e: { action: string; actor: string }) => `${e.action} by ${e.actor}`)).toEqual([
      "account.topup by admin",
      "key.revoke by admin",
      "key.create by account:acme",
      "account.token.create by cli",
      "account.create by cli",
    ]);
    expect(entries[0].details).toEqual({ amount: "7" });
    expect(entries[2]).toMatchObject({
      key_id: created.id,
      details: { name: "k1", budget: "3", period: "month" },
    });
    expect(JSON.stringify(entries)).not.toContain(created.key);
    expect(JSON.stringify(entries)).not.toContain(acmeToken);

    const all = await ok("/admin/v1/audit?limit=100", ADMIN);
    expect(new Set(all.entries.map((e: { account_id: string }) => e.account_id))).toEqual(
      new Set(["acme", "other"]),
    );
    const filtered = await ok("/admin/v1/audit?account=other", ADMIN);
    // All that happened to "other" is beforeEach's setup, newest first.
    expect(
      filtered.entries.map(
        (e: { account_id: string; action: string; actor: string }) =>
          `${e.account_id}: ${e.action} by ${e.actor}`,
      ),
    ).toEqual(["other: account.token.create by cli", "other: account.create by cli"]);
    expect(await refused("/admin/v1/audit", acmeToken, {}, 403, "forbidden")).toBe(
      "The token of account acme may not read the audit log of every account.",
    );
    expect((await ok("/admin/v1/accounts/acme/audit?limit=2", acmeToken)).entries).toHaveLength(2);
    // limit=0 must not mean "no limit": a store asked for 0 entries would read them all.
    for (const limit of ["0", "-1", "two"]) {
      const message = await refused(
        `/admin/v1/accounts/acme/audit?limit=${limit}`,
        acmeToken,
        {},
        400,
        "invalid_request",
      );
      expect(message).toMatch(/limit/);
    }
  });

  it("updates the balance metric when the operator tops up", async () => {
    await ok("/admin/v1/accounts/acme/topups", ADMIN, { method: "POST", body: { amount: 25 } });
    const scrape = await (await fetch(`${t.gateway.metricsUrl}/metrics`)).text();
    expect(scrape).toMatch(/tunnel_gateway_account_balance_rubles\{account="acme"\} 125$/m);
  });
});

describe("the OpenAPI document", () => {
  it("is served, lists every route, and is the one kept in the repository", async () => {
    const res = await fetch(`${t.gateway.adminUrl}/admin/v1/openapi.json`);
    expect(res.status).toBe(200);
    const served = await json(res);
    expect(served.openapi).toBe("3.1.0");
    for (const route of ROUTES) {
      const operation = served.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation?.operationId, `${route.method} ${route.path}`).toBe(route.operationId);
      expect(Object.keys(operation.responses)).toContain(String(route.status));
    }
    const committed = JSON.parse(
      readFileSync(new URL("../../src/admin/openapi.json", import.meta.url), "utf8"),
    );
    expect(committed, "src/admin/openapi.json is stale: run npm run openapi").toEqual(openApiDocument());
    expect(served).toEqual(committed);
  });
});
