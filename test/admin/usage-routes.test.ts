// The admin API's usage routes (admin/usage-routes.ts, their queries in admin/usage-schemas.ts) through the
// real admin listener over HTTP: an account's usage report and its CSV downloads (named by account and range),
// a page of a key's kept requests with its filters, and the operator's overview — each route's status, its
// query errors naming the parameter, and who may reach it.

import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recentRequestJson } from "../../src/store/usage/request-log-store.js";
import { type AdminApi, startAdminApi } from "../helpers/admin-api.js";
import { finishedRequest } from "../helpers/requests.js";

let api: AdminApi;
let keyId: string;
beforeEach(async () => {
  api = await startAdminApi();
  keyId = (await api.store.keyService.create({ accountId: "acme", name: "batch" }, { kind: "cli" })).record
    .id;
});
afterEach(() => api.close());

/** A request of acme's key settled now, costing `cost` µ₽, answered with `status`. */
async function settled(requestId: string, cost: number, status = 200): Promise<void> {
  const { store } = api;
  const ref = { accountId: "acme", keyId };
  const now = store.clock.now();
  const reservationId = randomUUID();
  const key = await store.keys.get(ref);
  expect(
    await store.billing.reserve(ref, {
      reservationId,
      amount: cost,
      tokens: 0,
      keyHash: key?.hash ?? "",
      now,
      periods: store.calendar.at(now),
      expiresAt: now + 60_000,
      model: { kind: "none" },
    }),
  ).toMatchObject({ ok: true });
  const request = finishedRequest({ requestId, accountId: "acme", keyId, status, cost, endedAt: now });
  await store.billing.settle({
    ref,
    reservationId,
    requestId,
    logEntry: recentRequestJson(request, 0).entry,
    logEntryWithBodies: "",
    model: "m",
    cost,
    promptTokens: 12,
    completionTokens: 7,
    failed: status >= 400,
    estimated: false,
    latencyMs: 5,
    periods: store.calendar.at(now),
    day: store.calendar.dayOf(now),
    now,
  });
}

describe("an account's usage", () => {
  it("is reported to the account over the days asked, this month by default", async () => {
    await settled("r1", 26_000);
    const report = await api.call("GET", "/admin/v1/accounts/acme/usage", { as: api.acmeToken });
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ account_id: "acme", from: "2026-11-01", to: "2026-11-21" });
    const range = await api.call("GET", "/admin/v1/accounts/acme/usage?from=2026-11-20&to=2026-11-21");
    expect(range.body).toMatchObject({ from: "2026-11-20", to: "2026-11-21" });
  });

  it("refuses an unknown parameter and a bad day, naming it", async () => {
    const unknown = await api.call("GET", "/admin/v1/accounts/acme/usage?key=x");
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain("unknown parameter key");
    const bad = await api.call("GET", "/admin/v1/accounts/acme/usage?from=21.11.2026");
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("from");
  });

  it("downloads as CSV named by the account and the range", async () => {
    await settled("r1", 26_000);
    const usage = await api.call("GET", "/admin/v1/accounts/acme/usage.csv?from=2026-11-21&to=2026-11-21", {
      as: api.acmeToken,
    });
    expect(usage.status).toBe(200);
    expect(usage.headers.get("content-disposition")).toContain(
      "acme-usage-from-2026-11-21-to-2026-11-21.csv",
    );
    expect(usage.body).toContain(keyId);
    const requests = await api.call("GET", "/admin/v1/accounts/acme/requests.csv");
    expect(requests.headers.get("content-disposition")).toContain('acme-requests.csv"');
    expect(requests.body).toContain("r1");
  });

  it("is not another account's to read", async () => {
    for (const path of ["usage", "usage.csv", "requests.csv"]) {
      expect(
        (await api.call("GET", `/admin/v1/accounts/other/${path}`, { as: api.acmeToken })).status,
        path,
      ).toBe(403);
    }
  });
});

describe("GET …/keys/{keyId}/requests", () => {
  it("pages through the key's kept requests newest first, filtered by status and request id", async () => {
    await settled("r1", 1000);
    await settled("r2", 2000, 429);
    await settled("r3", 3000);
    const path = `/admin/v1/accounts/acme/keys/${keyId}/requests`;
    const page = await api.call("GET", `${path}?limit=2`, { as: api.acmeToken });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ key_id: keyId, offset: 0, limit: 2 });
    expect(page.body.requests.map((r: { request_id: string }) => r.request_id)).toEqual(["r3", "r2"]);
    const next = await api.call("GET", `${path}?limit=2&offset=2`);
    expect(next.body.requests.map((r: { request_id: string }) => r.request_id)).toEqual(["r1"]);
    const limited = await api.call("GET", `${path}?status=429`);
    expect(limited.body.requests.map((r: { request_id: string }) => r.request_id)).toEqual(["r2"]);
    const byId = await api.call("GET", `${path}?request_id=R1`);
    expect(byId.body.requests.map((r: { request_id: string }) => r.request_id)).toEqual(["r1"]);
  });

  it("refuses an offset or limit that is no whole number, naming it, and a key of another account", async () => {
    const path = `/admin/v1/accounts/acme/keys/${keyId}/requests`;
    const offset = await api.call("GET", `${path}?offset=-1`);
    expect(offset.status).toBe(400);
    expect(offset.body.error.message).toBe("Invalid query: offset: must be a whole number.");
    const limit = await api.call("GET", `${path}?limit=0`);
    expect(limit.body.error.message).toBe("Invalid query: limit: must be a whole number from 1 on.");
    const theirs = await api.call("GET", `/admin/v1/accounts/other/keys/${keyId}/requests`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe("key_not_found");
  });
});

describe("GET /admin/v1/overview", () => {
  it("shows operators every account with its month's spend, a page at a time", async () => {
    await settled("r1", 26_000);
    const overview = await api.call("GET", "/admin/v1/overview?sort=id&limit=1");
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({ month: "2026-11", timezone: "UTC", offset: 0, limit: 1 });
    expect(overview.body.totals.accounts).toBe(2);
    expect(overview.body.accounts).toEqual([
      expect.objectContaining({
        id: "acme",
        month: { requests: 1, cost: 0.026 },
        undelivered_since: expect.any(String),
      }),
    ]);
    const second = await api.call("GET", "/admin/v1/overview?sort=id&offset=1");
    expect(second.body.accounts.map((a: { id: string }) => a.id)).toEqual(["other"]);
    expect(second.body.limit).toBe(50);
  });

  it("refuses an unknown sort naming it, and an account's token", async () => {
    const sort = await api.call("GET", "/admin/v1/overview?sort=name");
    expect(sort.status).toBe(400);
    expect(sort.body.error.message).toMatch(/^Invalid query: sort: /);
    expect((await api.call("GET", "/admin/v1/overview", { as: api.acmeToken })).status).toBe(403);
  });
});
