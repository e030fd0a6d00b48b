// The caller's own routes (server/caller-routes.ts) through the public listener's handler over real HTTP, on
// the suite's Redis: which paths are theirs, GET /v1/requests/{id} answered from the key's recent-requests
// list or, while this replica still holds the settlement, from it (settled: false), an id that cannot be one
// answered as unknown, and GET /v1/usage's days and totals, its parameters checked.
// test/e2e/caller-endpoints.test.ts checks the figures against what real requests cost.

import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PendingSettlements } from "../../src/billing/pending-settlements.js";
import { configSchema } from "../../src/config/schema.js";
import { callerRoute } from "../../src/server/caller-routes.js";
import { createPublicHandler } from "../../src/server/public-server.js";
import { TransportSecurity } from "../../src/server/transport-security.js";
import type { Settlement } from "../../src/store/billing/settle-script.js";
import { recentRequestJson } from "../../src/store/usage/request-log-store.js";
import { ACTOR } from "../helpers/actor.js";
import { testContext } from "../helpers/context.js";
import { json, type Listening, listen } from "../helpers/http.js";
import { finishedRequest, type RequestFields } from "../helpers/requests.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let server: Listening;
let pending: PendingSettlements;
let forwarded: string[];
let key: { id: string; value: string };

beforeEach(async () => {
  store = await openStore();
  const { ctx } = testContext(store, {});
  pending = new PendingSettlements();
  ctx.pending = pending;
  forwarded = [];
  server = await listen(
    createPublicHandler(
      ctx,
      (req, res) => {
        forwarded.push(req.url ?? "");
        res.writeHead(299).end();
      },
      new TransportSecurity(configSchema.parse({}).security),
    ),
  );
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  key = await newKey();
});
afterEach(async () => {
  await server.close();
  store.close();
});

async function newKey(): Promise<{ id: string; value: string }> {
  const { record, value } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
  return { id: record.id, value };
}

const get = (path: string, value = key.value) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${value}` } });

/** The settlement of a request of the key, with its recent-requests entry. */
function settlementOf(fields: RequestFields, entry?: string): Settlement {
  const now = store.clock.now();
  const request = finishedRequest({ accountId: "acme", keyId: key.id, endedAt: now, ...fields });
  return {
    ref: { accountId: "acme", keyId: key.id },
    reservationId: randomUUID(),
    requestId: request.requestId ?? "",
    logEntry: entry ?? recentRequestJson(request, 0).entry,
    logEntryWithBodies: "",
    model: request.model,
    cost: request.cost,
    promptTokens: request.promptTokens,
    completionTokens: request.completionTokens,
    cachedTokens: request.cachedTokens,
    failed: false,
    estimated: false,
    latencyMs: request.latencyMs,
    periods: store.calendar.at(now),
    day: store.calendar.dayOf(now),
    now,
  };
}

/** Reserves and settles the request through the scripts, as the gateway does. */
async function settled(settlement: Settlement): Promise<void> {
  const now = store.clock.now();
  const reserved = await store.billing.reserve(settlement.ref, {
    reservationId: settlement.reservationId,
    amount: settlement.cost,
    tokens: 0,
    keyHash: (await store.keyService.show(settlement.ref.keyId)).hash as string,
    now,
    periods: store.calendar.at(now),
    expiresAt: now + 60_000,
    model: { kind: "none" },
  });
  expect(reserved).toMatchObject({ ok: true });
  await store.billing.settle(settlement);
}

describe("callerRoute", () => {
  it("takes /v1/usage exactly and /v1/requests/ with an id after it; every other path is forwarded", () => {
    expect(callerRoute("/v1/usage")).toBeTypeOf("function");
    expect(callerRoute("/v1/requests/x")).toBeTypeOf("function");
    expect(callerRoute("/v1/requests/x")).not.toBe(callerRoute("/v1/usage"));
    for (const path of [
      "/v1/requests/",
      "/v1/requests",
      "/v1/usage/",
      "/v1/usages",
      "/v2/usage",
      "/v1/chat",
    ]) {
      expect(callerRoute(path), path).toBeUndefined();
    }
  });
});

describe("GET /v1/requests/{request_id}", () => {
  it("answers one of the key's settled requests from its recent-requests list, in rubles", async () => {
    await settled(
      settlementOf({ requestId: "req-1", cost: 26_000, cachedTokens: 3, queuedAt: 1, dequeuedAt: 43 }),
    );
    const res = await get("/v1/requests/req-1");
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      id: "req-1",
      created_at: new Date(store.clock.now()).toISOString(),
      model: "m",
      path: "/v1/chat/completions",
      status: 200,
      prompt_tokens: 12,
      cached_tokens: 3,
      completion_tokens: 7,
      cost: 0.026,
      currency: "RUB",
      usage_estimated: false,
      latency_ms: 123,
      settled: true,
    });
  });

  it("reads an entry written without cached tokens or queue time as none of either", async () => {
    const { cached_tokens: _, ...older } = JSON.parse(
      recentRequestJson(finishedRequest({ requestId: "old" }), 0).entry,
    );
    await settled(settlementOf({ requestId: "old" }, JSON.stringify(older)));
    expect(await json(await get("/v1/requests/old"))).toMatchObject({ cached_tokens: 0, queue_ms: 0 });
  });

  it("answers from the settlement this replica still holds, marked not yet settled, before the list", async () => {
    await settled(settlementOf({ requestId: "req-1", cost: 1000 }));
    pending.add(settlementOf({ requestId: "req-1", cost: 5000, status: 201 }));
    const body = await json(await get("/v1/requests/req-1"));
    expect(body).toMatchObject({ id: "req-1", cost: 0.005, status: 201, settled: false });
  });

  it("does not answer another key's pending settlement", async () => {
    const other = await newKey();
    pending.add(settlementOf({ requestId: "req-2" }));
    const res = await get("/v1/requests/req-2", other.value);
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe("request_not_found");
  });

  it("decodes the id, and answers an id that cannot be one as unknown with 404 request_not_found", async () => {
    await settled(settlementOf({ requestId: "a/b:c" }));
    expect((await get("/v1/requests/a%2Fb%3Ac")).status).toBe(200);
    for (const id of ["%E0%A4%A", "a%20b", "x".repeat(129), "%22quoted%22", "nope"]) {
      const res = await get(`/v1/requests/${id}`);
      expect(res.status, id).toBe(404);
      expect((await json(res)).error.code, id).toBe("request_not_found");
    }
  });

  it("refuses query parameters with 400 invalid_request", async () => {
    const res = await get("/v1/requests/req-1?verbose=1");
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: "invalid_request",
      message: "This path takes no query parameters.",
    });
  });

  it("refuses a request without a key with 401, forwarding nothing", async () => {
    const res = await fetch(`${server.url}/v1/requests/req-1`);
    expect(res.status).toBe(401);
    expect(forwarded).toEqual([]);
  });
});

describe("GET /v1/usage", () => {
  it("lists the key's days from and to, with totals summed over them, cost exact in rubles", async () => {
    store.clock.set("2026-11-20T10:00:00Z");
    await settled(settlementOf({ requestId: "a", cost: 100_001, promptTokens: 10, completionTokens: 5 }));
    store.clock.set("2026-11-21T10:00:00Z");
    await settled(settlementOf({ requestId: "b", cost: 200_002, promptTokens: 1, completionTokens: 2 }));
    const other = await newKey();
    await settled({
      ...settlementOf({ requestId: "c", cost: 999 }),
      ref: { accountId: "acme", keyId: other.id },
    });

    const body = await json(await get("/v1/usage?from=2026-11-19&to=2026-11-21"));
    expect(body).toMatchObject({
      key_id: key.id,
      from: "2026-11-19",
      to: "2026-11-21",
      timezone: "UTC",
      currency: "RUB",
    });
    expect(body.days).toEqual([
      {
        date: "2026-11-19",
        requests: 0,
        prompt_tokens: 0,
        cached_tokens: 0,
        completion_tokens: 0,
        cost: 0,
        errors: 0,
      },
      {
        date: "2026-11-20",
        requests: 1,
        prompt_tokens: 10,
        cached_tokens: 0,
        completion_tokens: 5,
        cost: 0.100001,
        errors: 0,
      },
      {
        date: "2026-11-21",
        requests: 1,
        prompt_tokens: 1,
        cached_tokens: 0,
        completion_tokens: 2,
        cost: 0.200002,
        errors: 0,
      },
    ]);
    expect(body.total).toEqual({
      requests: 2,
      prompt_tokens: 11,
      cached_tokens: 0,
      completion_tokens: 7,
      cost: 0.300003,
      errors: 0,
    });
  });

  it("covers the last 30 days up to today without parameters", async () => {
    const body = await json(await get("/v1/usage"));
    expect(body).toMatchObject({ from: "2026-10-23", to: "2026-11-21" });
    expect(body.days).toHaveLength(30);
  });

  it("refuses a parameter other than from and to, naming it, and more than 92 days", async () => {
    const res = await get("/v1/usage?from=2026-11-01&key=other");
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toBe("Unknown parameter key: /v1/usage takes from and to.");
    expect((await get("/v1/usage?from=2026-08-22&to=2026-11-21")).status).toBe(200);
    const long = await json(await get("/v1/usage?from=2026-08-21&to=2026-11-21"));
    expect(long.error.message).toBe("from and to may span at most 92 days; got 2026-08-21 to 2026-11-21");
  });
});
