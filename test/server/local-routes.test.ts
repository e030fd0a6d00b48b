// The endpoints the gateway answers itself, over real HTTP against a real Redis.

import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { startGateway } from "../../src/gateway.js";
import { createLogger } from "../../src/observability/logger.js";
import { ACTOR } from "../helpers/actor.js";
import { TestClock } from "../helpers/clock.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { waitUntil } from "../helpers/wait.js";

let t: TestGateway;
afterEach(async () => {
  await t?.close();
});

async function spend(keyId: string, accountId: string, micros: number): Promise<void> {
  const now = t.clock.now();
  const ref = { accountId, keyId };
  const reservationId = randomUUID();
  const key = await t.store.keys.get(ref);
  await t.store.billing.reserve(ref, {
    reservationId,
    amount: micros,
    tokens: 0,
    keyHash: key?.hash ?? "",
    now,
    periods: t.store.calendar.at(now),
    expiresAt: now + 60_000,
    model: { kind: "none" },
  });
  await t.store.billing.settle({
    ref,
    reservationId,
    logEntry: "{}",
    logEntryWithBodies: "",
    model: null,
    cost: micros,
    promptTokens: 1,
    completionTokens: 1,
    failed: false,
    estimated: false,
    latencyMs: 1,
    periods: t.store.calendar.at(now),
    day: t.store.calendar.dayOf(now),
    now,
  });
}

describe("GET /healthz and /readyz", () => {
  it("answers liveness without a key", async () => {
    t = await startTestGateway();
    const res = await t.fetch("/healthz");
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: "ok" });
  });

  it("answers ready when Redis answers", async () => {
    t = await startTestGateway();
    // The gateway connects to Redis in the background and is not ready before.
    const gateway = t;
    await waitUntil(
      async () => (await gateway.fetch("/readyz")).status === 200,
      "the gateway to connect to Redis",
    );
    const res = await t.fetch("/readyz");
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: "ready" });
  });

  it("refuses other methods on its own paths with 405 method_not_allowed", async () => {
    t = await startTestGateway();
    const res = await t.fetch("/v1/key", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect((await json(res)).error.code).toBe("method_not_allowed");
  });
});

describe("GET /v1/key", () => {
  it("describes the key in the documented shape", async () => {
    const clock = new TestClock(Date.parse("2026-11-21T10:00:00.000Z"));
    t = await startTestGateway({ clock });
    const key = await t.newKey({
      budget: "1000",
      period: "month",
      models: ["llama-3-8b"],
      ttl: "30d",
      logBodies: false,
      rpm: 60,
      maxParallel: 4,
    });
    await spend(key.id, key.accountId, 12_500_000);
    const res = await t.fetch("/v1/key", { key: key.value });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await json(res)).toEqual({
      id: key.id,
      name: "test key",
      account_id: "acme",
      created_at: "2026-11-21T10:00:00.000Z",
      expires_at: "2026-12-21T10:00:00.000Z",
      allowed_models: ["llama-3-8b"],
      log_bodies: false,
      budget: {
        period: "month",
        amount: 1000,
        spent: 12.5,
        remaining: 987.5,
        resets_at: "2026-12-01T00:00:00.000Z",
        initial: 1000,
        reset_at: "2026-12-01T00:00:00.000Z",
      },
      budgets: [
        {
          period: "month",
          amount: 1000,
          spent: 12.5,
          remaining: 987.5,
          resets_at: "2026-12-01T00:00:00.000Z",
        },
      ],
      currency: "RUB",
      state: "active",
      grace_until: null,
      disabled_at: null,
      limits: { rpm: 60, tpm: null, max_parallel: 4 },
    });
  });

  it("shows null for no expiry and no model list, and no windows for no budget", async () => {
    t = await startTestGateway();
    const key = await t.newKey();
    const body = await (await t.fetch("/v1/key", { key: key.value })).json();
    expect(body).toMatchObject({
      expires_at: null,
      allowed_models: null,
      budgets: [],
      log_bodies: true,
      limits: { rpm: null, tpm: null, max_parallel: null },
    });
  });

  it("shows a rolled-over period as soon as it has started, before any request touches the key (Europe/Moscow)", async () => {
    // 23:30 on Sunday 31 January 2027 in Moscow (UTC+3) is 20:30 UTC; Monday 1 February starts a new
    // day, a new ISO week and a new month at once.
    const clock = new TestClock(Date.parse("2027-01-31T20:30:00.000Z"));
    t = await startTestGateway({ clock, config: { billing: { timezone: "Europe/Moscow" } } });
    const daily = await t.newKey({ budget: "10", period: "day" });
    const weekly = await t.newKey({ budget: "10", period: "week" });
    const monthly = await t.newKey({ budget: "10", period: "month" });
    for (const key of [daily, weekly, monthly]) await spend(key.id, key.accountId, 4_000_000);
    const budgetOf = async (value: string) =>
      (await json(await t.fetch("/v1/key", { key: value }))).budgets[0];

    expect(await budgetOf(daily.value)).toMatchObject({
      spent: 4,
      remaining: 6,
      resets_at: "2027-01-31T21:00:00.000Z",
    });
    expect(await budgetOf(weekly.value)).toMatchObject({ spent: 4, resets_at: "2027-01-31T21:00:00.000Z" });
    expect(await budgetOf(monthly.value)).toMatchObject({ spent: 4, resets_at: "2027-01-31T21:00:00.000Z" });

    clock.set("2027-01-31T21:00:00.000Z");
    expect(await budgetOf(daily.value)).toMatchObject({
      spent: 0,
      remaining: 10,
      resets_at: "2027-02-01T21:00:00.000Z",
    });
    expect(await budgetOf(weekly.value)).toMatchObject({ spent: 0, resets_at: "2027-02-07T21:00:00.000Z" });
    expect(await budgetOf(monthly.value)).toMatchObject({ spent: 0, resets_at: "2027-02-28T21:00:00.000Z" });
  });

  it("answers while the budget is used up and the balance is zero, so the client can read when it resets", async () => {
    t = await startTestGateway();
    const key = await t.newKey({ balance: "5", budget: "5" });
    await spend(key.id, key.accountId, 5_000_000);
    const res = await t.fetch("/v1/key", { key: key.value });
    expect(res.status).toBe(200);
    expect((await json(res)).budgets[0]).toMatchObject({ spent: 5, remaining: 0 });
    const balance = await t.fetch("/v1/balance", { key: key.value });
    expect(balance.status).toBe(200);
    expect((await json(balance)).balance).toBe(0);
  });
});

describe("GET /v1/balance", () => {
  it("shows the account balance and the key's budget in the documented shape", async () => {
    t = await startTestGateway();
    const key = await t.newKey({ balance: "5000.15", budget: "1000", period: "week", tpm: 100_000 });
    await spend(key.id, key.accountId, 12_500_000);
    const res = await t.fetch("/v1/balance", { key: key.value });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      account_id: "acme",
      balance: 4987.65,
      currency: "RUB",
      billing: "prepaid",
      budgets: [],
      key: {
        id: key.id,
        name: "test key",
        state: "active",
        budget: {
          period: "week",
          amount: 1000,
          spent: 12.5,
          remaining: 987.5,
          resets_at: "2026-11-23T00:00:00.000Z",
          initial: 1000,
          reset_at: "2026-11-23T00:00:00.000Z",
        },
        budgets: [
          {
            period: "week",
            amount: 1000,
            spent: 12.5,
            remaining: 987.5,
            resets_at: "2026-11-23T00:00:00.000Z",
          },
        ],
        limits: { rpm: null, tpm: 100_000, max_parallel: null },
      },
    });
  });
});

describe("authentication errors", () => {
  const cases: [string, () => Promise<Record<string, string>>, string][] = [
    ["no Authorization header", async () => ({}), "missing_api_key"],
    ["a Basic credential", async () => ({ authorization: "Basic dXNlcjpwYXNz" }), "missing_api_key"],
    ["a key of the wrong form", async () => ({ authorization: "Bearer sk-tunnel-xyz" }), "invalid_api_key"],
    [
      "uppercase hex",
      async () => ({ authorization: `Bearer sk-tunnel-${"A".repeat(64)}` }),
      "invalid_api_key",
    ],
    [
      "a well-formed key that does not exist",
      async () => ({ authorization: `Bearer sk-tunnel-${"0".repeat(64)}` }),
      "invalid_api_key",
    ],
  ];

  for (const [what, headers, code] of cases) {
    it(`refuses ${what} with 401 ${code} and WWW-Authenticate`, async () => {
      t = await startTestGateway();
      for (const path of ["/v1/key", "/v1/balance"]) {
        const res = await t.fetch(path, { headers: await headers() });
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
        const body = await json(res);
        expect(body).toEqual({ error: { message: expect.any(String), type: "authentication_error", code } });
      }
    });
  }

  it("refuses a revoked key with 401 key_revoked at once, though its mapping is cached", async () => {
    t = await startTestGateway();
    const key = await t.newKey();
    expect((await t.fetch("/v1/key", { key: key.value })).status).toBe(200);
    await t.store.keyService.revoke(key.id, ACTOR);
    const res = await t.fetch("/v1/key", { key: key.value });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("key_revoked");
  });

  it("refuses a key exactly at the end of its lifetime with 401 key_expired", async () => {
    t = await startTestGateway();
    const key = await t.newKey({ ttl: "15m" });
    t.clock.advance(15 * 60_000 - 1);
    expect((await t.fetch("/v1/balance", { key: key.value })).status).toBe(200);
    t.clock.advance(1);
    const res = await t.fetch("/v1/balance", { key: key.value });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("key_expired");
  });

  it("never puts the key into a response or a log line", async () => {
    t = await startTestGateway();
    const key = await t.newKey();
    await t.store.keyService.revoke(key.id, ACTOR);
    const text = await (await t.fetch("/v1/key", { key: key.value })).text();
    expect(text).not.toContain(key.value);
    expect(JSON.stringify(t.logs)).not.toContain(key.value.slice(10));
  });
});

describe("when Redis is unreachable", () => {
  it("fails closed with 503 service_unavailable and Retry-After, and reports not ready", async () => {
    // Port 1 is privileged and never bound on a test machine (unlike a port found free, which another test
    // may take meanwhile): nothing answers there.
    const deadRedis = "redis://127.0.0.1:1";
    const config = configSchema.parse({
      listen: { port: 0 },
      metrics: { port: 0 },
      redis: { url: deadRedis },
      logging: { level: "silent" },
    });
    const gateway = await startGateway({ config, logger: createLogger("silent") });
    try {
      const res = await fetch(`${gateway.url}/v1/key`, {
        headers: { authorization: `Bearer sk-tunnel-${"1".repeat(64)}` },
      });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(await json(res)).toEqual({
        error: { message: expect.any(String), type: "service_unavailable", code: "service_unavailable" },
      });
      const ready = await fetch(`${gateway.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});
