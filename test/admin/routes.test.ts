// Each route of the admin API on its own: its handler called as the router calls it, on the real services
// and the suite's Redis — what it reads or changes, for whom, and that its answer is what its response
// schema (and so the OpenAPI document) says. Who may call each route is the permission test's
// (test/admin/permissions.test.ts).

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cookieNames } from "../../src/admin/cookies.js";
import type { AdminServices, Exchange, Route } from "../../src/admin/route.js";
import { ROUTES } from "../../src/admin/routes.js";
import { legacyAccount, legacyAdmin, type Principal } from "../../src/identity/principal.js";
import { AccountUsageService } from "../../src/services/account-usage.js";
import { AlertService } from "../../src/services/alerts.js";
import { BudgetService } from "../../src/services/budgets.js";
import { KeyService } from "../../src/services/keys.js";
import { OperatorOverviewService } from "../../src/services/operator-overview.js";
import { SharingService } from "../../src/services/sharing.js";
import { recentRequest } from "../../src/store/usage/request-log-store.js";
import { ACTOR } from "../helpers/actor.js";
import { testIdentity } from "../helpers/identity.js";
import { requestWith } from "../helpers/requests.js";
import { openStore, type TestStore } from "../helpers/store.js";

const ADMIN: Principal = legacyAdmin();
const ACME: Principal = legacyAccount("acme");
const HTTP: Exchange = {
  cookies: new Map(),
  cookieNames: cookieNames(null),
  userAgent: "test",
  address: "127.0.0.1",
  origin: "http://admin.test",
  setCookie() {},
};

let store: TestStore;
let services: AdminServices;
let balances: [string, number][];

beforeEach(async () => {
  store = await openStore();
  balances = [];
  services = {
    accounts: store.accountService,
    budgets: new BudgetService(store.stores),
    keys: new KeyService(store.stores),
    alerts: new AlertService(store.stores, { allowHttp: false, thresholds: [80, 95, 100] }),
    usage: new AccountUsageService(store.stores),
    overview: new OperatorOverviewService(store.stores),
    identity: testIdentity(store),
    calendar: store.calendar,
    now: store.clock.now,
    balanceChanged: (accountId, balance) => balances.push([accountId, balance]),
    sharing: new SharingService(store.stores),
    stores: store.stores,
  };
  await store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
  await store.accountService.create({ id: "other", balance: "50" }, ACTOR);
});
afterEach(() => store.close());

function routeOf(operationId: string): Route {
  const found = ROUTES.find((r) => r.operationId === operationId);
  if (!found) throw new Error(`no route ${operationId}`);
  return found;
}

/** Calls a route's handler as the router does, and checks its answer against the route's response schema. */
async function call(
  operationId: string,
  principal: Principal,
  params: Record<string, string> = {},
  options: { query?: Record<string, string | undefined>; body?: unknown } = {},
): Promise<any> {
  const route = routeOf(operationId);
  const body = route.body ? route.body.parse(options.body ?? {}) : undefined;
  const query = route.query ? route.query.parse(options.query ?? {}) : {};
  const result = await route.handle({ principal, params, query: query as never, body, services, http: HTTP });
  const checked = route.response.safeParse(result);
  expect(checked.success, `${operationId}: ${checked.error?.message}`).toBe(true);
  return result;
}

async function newKey(accountId = "acme", fields: Record<string, unknown> = {}) {
  return (await services.keys.create({ accountId, name: "k", ...fields }, ACTOR)).record;
}

describe("the route table", () => {
  it("names each route once, under /admin/v1/ or /auth/, answering 201 only for what it creates", () => {
    const seen = new Set(ROUTES.map((route) => `${route.method} ${route.path}`));
    expect(seen.size).toBe(ROUTES.length);
    expect(ROUTES.every((route) => /^\/(admin\/v1|auth)\//.test(route.path))).toBe(true);
    const created = ROUTES.filter((route) => route.status === 201).map((route) => route.operationId);
    expect(created.sort()).toEqual([
      "createAccount",
      "createInvitation",
      "createKey",
      "createMyToken",
      "createScimToken",
    ]);
  });
});

describe("whoAmI", () => {
  it("names the operator, or the account a token belongs to", async () => {
    expect(await call("whoAmI", ADMIN)).toMatchObject({
      role: "admin",
      account_id: null,
      timezone: "UTC",
      credential: "admin-token",
      user: null,
      operator_role: "operator",
      memberships: [],
      csrf_token: null,
    });
    const acme = await call("whoAmI", ACME);
    expect(acme).toMatchObject({
      role: "account",
      account_id: "acme",
      timezone: "UTC",
      credential: "account-token",
      operator_role: null,
      memberships: [{ account_id: "acme", account_name: "Acme", role: "owner" }],
    });
    expect(acme.actions.global).toEqual([]);
    expect(acme.actions.accounts.acme).toContain("members.write");
    expect(acme.actions.accounts.acme).not.toContain("account.topup");
  });
});

describe("accounts", () => {
  it("are all listed to the operator, and only its own to an account", async () => {
    expect((await call("listAccounts", ADMIN)).map((a: any) => a.id).sort()).toEqual(["acme", "other"]);
    expect(await call("listAccounts", ACME)).toEqual([
      expect.objectContaining({ id: "acme", balance: 100, token: null }),
    ]);
  });

  it("are created and shown", async () => {
    const created = await call(
      "createAccount",
      ADMIN,
      {},
      { body: { id: "new", name: "New", balance: "12.5" } },
    );
    expect(created).toMatchObject({ id: "new", name: "New", balance: 12.5, token: null });
    expect(await call("showAccount", ADMIN, { accountId: "new" })).toEqual(created);
    const [entry] = await store.accountService.audit("new", 1);
    expect(entry?.actor).toBe("admin");
  });

  it("are topped up, the new balance reported for the metrics", async () => {
    const account = await call("topUpAccount", ADMIN, { accountId: "acme" }, { body: { amount: 0.5 } });
    expect(account.balance).toBe(100.5);
    expect(balances).toEqual([["acme", 100_500_000]]);
  });
});

describe("the audit log", () => {
  it("of an account is read newest first, 100 entries by default or `limit`", async () => {
    for (let i = 0; i < 3; i++) await store.accountService.topUp("acme", "1", ACTOR);
    expect((await call("accountAudit", ACME, { accountId: "acme" })).entries).toHaveLength(4);
    const two = (await call("accountAudit", ACME, { accountId: "acme" }, { query: { limit: "2" } })).entries;
    expect(two.map((e: any) => e.action)).toEqual(["account.topup", "account.topup"]);
  });

  it("of every account is merged, or one account's when asked", async () => {
    const all = (await call("audit", ADMIN)).entries.map((e: any) => e.account_id);
    expect(all.sort()).toEqual(["acme", "other"]);
    expect((await call("audit", ADMIN, {}, { query: { account: "other" } })).entries).toEqual([
      expect.objectContaining({ account_id: "other", action: "account.create" }),
    ]);
    await expect(call("audit", ADMIN, {}, { query: { account: "ghost" } })).rejects.toMatchObject({
      code: "account_not_found",
    });
  });
});

describe("keys", () => {
  it("are created from the API's field names, the value shown once, and recorded as made by the caller", async () => {
    const created = await call(
      "createKey",
      ACME,
      { accountId: "acme" },
      { body: { name: "prod", budget: "5", period: "week", ttl: "30d", models: ["m"], log_bodies: false } },
    );
    expect(created).toMatchObject({
      name: "prod",
      account_id: "acme",
      state: "active",
      allowed_models: ["m"],
      log_bodies: false,
      period: "week",
      budgets: [{ amount: 5, spent: 0, period: "week" }],
      expires_at: new Date(store.clock.now() + 30 * 86_400_000).toISOString(),
    });
    expect(created.key.endsWith(created.hint)).toBe(true);
    const stored = await services.keys.show(created.id);
    expect(stored).toMatchObject({ logBodies: false, allowedModels: ["m"], budget: 5_000_000 });
    const [entry] = await store.accountService.audit("acme", 1);
    expect(entry).toMatchObject({ action: "key.create", actor: "account:acme", key_id: created.id });
  });

  it("are listed with revoked ones, shown, changed and revoked", async () => {
    const key = await newKey();
    const revoked = await newKey();
    await services.keys.revoke(revoked.id, ACTOR);
    const listed = await call("listKeys", ACME, { accountId: "acme" });
    expect(listed.map((k: any) => [k.id, k.state]).sort()).toEqual(
      [
        [key.id, "active"],
        [revoked.id, "revoked"],
      ].sort(),
    );

    const params = { accountId: "acme", keyId: key.id };
    expect((await call("showKey", ACME, params)).id).toBe(key.id);
    const updated = await call("updateKey", ACME, params, {
      body: { name: "renamed", budget: null, log_bodies: false },
    });
    expect(updated).toMatchObject({ name: "renamed", budget: null, log_bodies: false });
    const gone = await call("revokeKey", ACME, params);
    expect(gone).toMatchObject({ state: "revoked", revoked_at: new Date(store.clock.now()).toISOString() });
  });

  it("of another account are absent through this account's path, on every key route, and left unchanged", async () => {
    const theirs = await newKey("other");
    const params = { accountId: "acme", keyId: theirs.id };
    for (const operationId of ["showKey", "updateKey", "revokeKey", "keyUsage", "keyRequests"]) {
      const body = operationId === "updateKey" ? { name: "stolen" } : undefined;
      await expect(call(operationId, ACME, params, { body }), operationId).rejects.toMatchObject({
        code: "key_not_found",
        message: `account acme has no key ${theirs.id}`,
      });
    }
    expect(await services.keys.show(theirs.id)).toMatchObject({ name: "k", revokedAt: null });
  });
});

describe("a key's usage and requests", () => {
  it("give its usage per day over the range asked, 30 days up to today by default", async () => {
    const key = await newKey();
    await store.redis.hset(store.redisKeys.usage("acme", key.id, "2026-11-20"), {
      lat_le_100: 2,
      cost: 1_500_000,
    });
    const params = { accountId: "acme", keyId: key.id };
    const range = await call("keyUsage", ACME, params, { query: { from: "2026-11-20", to: "2026-11-21" } });
    expect(range).toMatchObject({ key_id: key.id, from: "2026-11-20", to: "2026-11-21" });
    expect(range.days.map((d: any) => [d.date, d.requests, d.cost])).toEqual([
      ["2026-11-20", 2, 1.5],
      ["2026-11-21", 0, 0],
    ]);
    const recent = await call("keyUsage", ACME, params);
    expect(recent.days).toHaveLength(30);
    expect(recent.to).toBe("2026-11-21");
  });

  it("give its recent requests newest first, 100 by default or `limit`", async () => {
    const key = await newKey();
    for (const id of ["r1", "r2", "r3"]) {
      const record = requestWith({
        requestId: id,
        method: "POST",
        path: "/v1/chat/completions",
        status: 200,
        outcome: "completed",
        endedAt: store.clock.now(),
      });
      await store.redis.lpush(
        store.redisKeys.requestLog("acme", key.id),
        JSON.stringify(recentRequest(record)),
      );
    }
    const params = { accountId: "acme", keyId: key.id };
    const all = await call("keyRequests", ACME, params);
    expect(all.key_id).toBe(key.id);
    expect(all.requests.map((r: any) => r.request_id)).toEqual(["r3", "r2", "r1"]);
    const one = await call("keyRequests", ACME, params, { query: { limit: "1" } });
    expect(one.requests.map((r: any) => r.request_id)).toEqual(["r3"]);
    expect(one).toMatchObject({ total: 3, offset: 0, limit: 1 });
  });

  it("filter its requests and page through them, refusing a bad filter by name", async () => {
    const key = await newKey();
    const statuses = [200, 429, 200, 500, 200];
    for (const [i, status] of statuses.entries()) {
      const record = requestWith({
        requestId: `req-${i}`,
        method: "POST",
        path: "/v1/chat/completions",
        model: i % 2 === 0 ? "llama" : "bge",
        status,
        outcome: status === 200 ? "completed" : "upstream_reset",
        endedAt: store.clock.now(),
      });
      await store.redis.lpush(
        store.redisKeys.requestLog("acme", key.id),
        JSON.stringify(recentRequest(record)),
      );
    }
    const params = { accountId: "acme", keyId: key.id };
    const errors = await call("keyRequests", ACME, params, { query: { status: "error" } });
    expect(errors.requests.map((r: any) => r.request_id)).toEqual(["req-3", "req-1"]);
    expect(errors.models).toEqual(["bge", "llama"]);
    const page = await call("keyRequests", ACME, params, {
      query: { model: "llama", offset: "1", limit: "1" },
    });
    expect(page).toMatchObject({ total: 3, offset: 1, limit: 1 });
    expect(page.requests.map((r: any) => r.request_id)).toEqual(["req-2"]);
    const found = await call("keyRequests", ACME, params, { query: { request_id: "Q-4" } });
    expect(found.requests.map((r: any) => r.request_id)).toEqual(["req-4"]);
    await expect(call("keyRequests", ACME, params, { query: { status: "fine" } })).rejects.toThrow(
      'status must be one of ok, error, 2xx, 4xx, 5xx or a status code such as 429; got "fine"',
    );
  });
});

describe("an account's usage", () => {
  it("reports this month by key and model, and exports the same as CSV", async () => {
    const key = await newKey("acme", { name: "prod" });
    await store.redis.hset(store.redisKeys.usage("acme", key.id, "2026-11-21"), {
      lat_le_50: 2,
      cost: 1_500_001,
      "m:llama:requests": 2,
      "m:llama:cost": 1_500_001,
    });
    const report = await call("accountUsage", ACME, { accountId: "acme" });
    expect(report).toMatchObject({
      from: "2026-11-01",
      to: "2026-11-21",
      totals: { month: { cost: 1.500001 } },
    });
    expect(report.models).toEqual([
      {
        model: "llama",
        other: false,
        requests: 2,
        prompt_tokens: 0,
        cached_tokens: 0,
        completion_tokens: 0,
        cost: 1.500001,
      },
    ]);
    const csv = await call("accountUsageCsv", ACME, { accountId: "acme" });
    expect(csv.split("\r\n").slice(1, -1)).toEqual([`2026-11-21,${key.id},prod,llama,2,0,0,0,1.500001`]);
    expect(
      routeOf("accountUsageCsv").csv?.({
        principal: ACME,
        params: { accountId: "acme" },
        query: { from: "2026-11-01" },
        body: undefined,
        services,
        http: HTTP,
      }),
    ).toBe("acme-usage-from-2026-11-01.csv");
    const requests = await call("accountRequestsCsv", ACME, { accountId: "acme" });
    expect(requests.split("\r\n")[0]).toMatch(/^at,request_id,key_id,key_name,/);
  });
});

describe("operatorOverview", () => {
  it("gives the totals and a page of accounts with their spend this month", async () => {
    await store.redis.hset(store.redisKeys.month("other", "2026-11"), { requests: 2, cost: 250_000 });
    const overview = await call("operatorOverview", ADMIN, {}, { query: { q: "oth", limit: "10" } });
    expect(overview).toMatchObject({
      month: "2026-11",
      totals: { accounts: 2, balance: 150, month_requests: 2, month_cost: 0.25 },
      matching: 1,
      offset: 0,
      limit: 10,
    });
    expect(overview.accounts.map((a: any) => [a.id, a.balance, a.month])).toEqual([
      ["other", 50, { requests: 2, cost: 0.25 }],
    ]);
    expect(routeOf("operatorOverview").action).toBe("overview.read");
  });
});

describe("budgets", () => {
  it("lets an operator set an account's mode and windows, and keys several windows, answering the new views", async () => {
    expect(routeOf("setAccountBudgets").action).toBe("account.budgets");
    const account = await call(
      "setAccountBudgets",
      ADMIN,
      { accountId: "acme" },
      { body: { billing: "budgeted", budgets: [{ period: "month", amount: 300000 }], alert_at: [90] } },
    );
    expect(account).toMatchObject({
      billing: "budgeted",
      budgets: [{ period: "month", amount: 300000, spent: 0, remaining: 300000 }],
      alert_at: [90],
    });
    // The body's schema refuses what is not a window before the service sees it; the service, the rest.
    expect(() =>
      routeOf("setAccountBudgets").body?.parse({ budgets: [{ period: "year", amount: 1 }] }),
    ).toThrow();
    await expect(
      call("setAccountBudgets", ADMIN, { accountId: "acme" }, { body: { billing: "budgeted", budgets: [] } }),
    ).rejects.toMatchObject({ code: "invalid_request" });

    const created = await call(
      "createKey",
      ACME,
      { accountId: "acme" },
      {
        body: {
          name: "search",
          budgets: [
            { period: "day", amount: 100 },
            { period: "month", amount: "2000.5" },
          ],
        },
      },
    );
    expect(created.budgets.map((w: { period: string; amount: number }) => [w.period, w.amount])).toEqual([
      ["day", 100],
      ["month", 2000.5],
    ]);
    const changed = await call(
      "updateKey",
      ACME,
      { accountId: "acme", keyId: created.id },
      { body: { budgets: [{ period: "week", amount: 10 }] } },
    );
    expect(changed.budgets).toHaveLength(1);
    await expect(
      call(
        "updateKey",
        ACME,
        { accountId: "acme", keyId: created.id },
        { body: { budgets: [{ period: "day", amount: 1 }], budget: 5 } },
      ),
    ).rejects.toMatchObject({
      code: "invalid_request",
      message: "give budgets, or budget and period, not both",
    });
  });
});

describe("sharing a full model server", () => {
  it("lets an operator set an account's weight, priority and wait, and a key its own, answering the new views", async () => {
    const account = await call(
      "setAccountSharing",
      ADMIN,
      { accountId: "acme" },
      { body: { weight: 3, priority: 1, max_wait_ms: 4000 } },
    );
    expect(account.sharing).toEqual({ weight: 3, priority: 1, max_wait_ms: 4000 });
    expect(routeOf("setAccountSharing").action).toBe("account.sharing");
    const key = await newKey();
    const view = await call(
      "setKeySharing",
      ACME,
      { accountId: "acme", keyId: key.id },
      { body: { priority: 2, max_wait_ms: null } },
    );
    expect(view.sharing).toEqual({ priority: 2, max_wait_ms: null });
    await expect(
      call("setKeySharing", ACME, { accountId: "other", keyId: key.id }, { body: { priority: 2 } }),
    ).rejects.toMatchObject({ code: "key_not_found" });
  });

  it("tells an account's queueing: the answering replica's now, and its keys' recent waits on any replica", async () => {
    const key = await newKey();
    const entry = (queue_ms: number | undefined, status = 200, outcome = "completed") =>
      JSON.stringify({ request_id: "r", status, outcome, ...(queue_ms !== undefined && { queue_ms }) });
    await store.redis.lpush(
      store.redisKeys.requestLog("acme", key.id),
      entry(undefined),
      entry(0),
      entry(0),
      entry(120),
      entry(900),
      entry(3000, 429, "refused"),
    );
    expect(await call("accountQueue", ACME, { accountId: "acme" })).toEqual({
      limit: null,
      shared: false,
      replica: null,
      recent: {
        requests: 5,
        waited: 3,
        p50_queue_ms: 120,
        p95_queue_ms: 3000,
        max_queue_ms: 3000,
        server_busy: 1,
      },
    });
    services.queue = {
      limit: 8,
      shared: true,
      inUse: () => 8,
      waiting: () => 30,
      account: (accountId) => ({ waiting: accountId === "acme" ? 4 : 0, oldestWaitMs: 250.4 }),
    };
    expect(await call("accountQueue", ACME, { accountId: "acme" })).toMatchObject({
      limit: 8,
      shared: true,
      replica: { in_use: 8, waiting: 30, account_waiting: 4, oldest_wait_ms: 250 },
    });
  });
});
