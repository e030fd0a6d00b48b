// No overspend under concurrency: 200 requests in parallel against a budget (or a balance) that covers
// only some of them, through one gateway and through two gateway processes sharing one Redis.

import { afterEach, describe, expect, inject, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type GatewayProcess, spawnGateway } from "../helpers/gateway-process.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

const PRICING = { default: { input: 1000, output: 2000, maxOutputTokens: 100 } };
const PARALLEL = 200;

let t: TestGateway;
let upstream: StubUpstream;
let second: GatewayProcess | undefined;

afterEach(async () => {
  await second?.stop();
  second = undefined;
  await t?.close();
  await upstream?.close();
});

async function setup(): Promise<void> {
  // A few milliseconds per token keep many requests in flight at once.
  upstream = await startStubUpstream({ tokenIntervalMs: 2 });
  t = await startTestGateway({ upstreamUrl: upstream.url, config: { pricing: PRICING } });
}

function send(base: string, key: string, i: number): Promise<Response> {
  return fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    // Streamed every other time: both paths must hold the line.
    body: JSON.stringify({
      model: "demo-small",
      max_tokens: 10,
      stream: i % 2 === 0,
      messages: [{ role: "user", content: "hi there you" }],
    }),
  });
}

async function fire(bases: string[], key: string): Promise<number[]> {
  return Promise.all(
    Array.from({ length: PARALLEL }, async (_, i) => {
      const res = await send(bases[i % bases.length] as string, key, i);
      const text = await res.text();
      if (res.status !== 200) {
        const code = JSON.parse(text).error.code;
        return res.status * 1000 + (code === "budget_exceeded" ? 1 : code === "insufficient_balance" ? 2 : 9);
      }
      return 200;
    }),
  );
}

/** Sum of the costs (µ₽) in request log lines. */
function charged(logs: Record<string, any>[]): { micros: number; requests: number } {
  const lines = logs.filter((line) => line.msg === "request");
  return {
    micros: lines.reduce((sum, line) => sum + Math.round(line.cost_rub * 1e6), 0),
    requests: lines.length,
  };
}

async function spawnSecond(): Promise<GatewayProcess> {
  return spawnGateway(
    {
      pricing: PRICING,
      upstream: { url: upstream.url },
      redis: { url: inject("redisUrl"), prefix: t.config.redis.prefix },
    },
    { TUNNEL_LOG_LEVEL: "info" },
  );
}

describe("a key's budget under 200 parallel requests", () => {
  for (const replicas of [1, 2]) {
    it(`is never overspent, through ${replicas} gateway process${replicas > 1 ? "es" : ""}`, async () => {
      await setup();
      if (replicas === 2) second = await spawnSecond();
      // Each request costs 0.023 ₽ and reserves about 0.2 ₽; 1 ₽ covers some of them, far from all.
      const key = await t.newKey({ budget: "1", period: "day" });
      const bases = replicas === 2 ? [t.url, (second as GatewayProcess).url] : [t.url];
      const statuses = await fire(bases, key.value);
      await settleAll();

      const accepted = statuses.filter((s) => s === 200).length;
      expect(accepted).toBeGreaterThan(0);
      expect(accepted).toBeLessThan(PARALLEL);
      expect(statuses.filter((s) => s !== 200).every((s) => s === 403_001)).toBe(true);

      const record = await t.store.keys.get({ accountId: "acme", keyId: key.id });
      expect(record!.spent).toBeLessThanOrEqual(1_000_000);
      const logged = charged([...t.logs, ...(second?.logs ?? [])]);
      expect(logged.requests).toBe(accepted);
      expect(record!.spent).toBe(logged.micros);
      expect(await t.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    });
  }
});

describe("an account's balance under 200 parallel requests", () => {
  for (const replicas of [1, 2]) {
    it(`never goes below zero and stays exact, through ${replicas} gateway process${replicas > 1 ? "es" : ""}`, async () => {
      await setup();
      if (replicas === 2) second = await spawnSecond();
      const key = await t.newKey({ balance: "1.5" });
      const bases = replicas === 2 ? [t.url, (second as GatewayProcess).url] : [t.url];
      const statuses = await fire(bases, key.value);
      await settleAll();

      const accepted = statuses.filter((s) => s === 200).length;
      expect(accepted).toBeGreaterThan(0);
      expect(accepted).toBeLessThan(PARALLEL);
      expect(statuses.filter((s) => s !== 200).every((s) => s === 402_002)).toBe(true);

      expect(charged([...t.logs, ...(second?.logs ?? [])]).requests).toBe(accepted);
      const balance = (await t.store.accounts.require("acme")).balance;
      expect(balance).toBeGreaterThanOrEqual(0);
      expect(balance).toBe(1_500_000 - charged([...t.logs, ...(second?.logs ?? [])]).micros);
      expect(await t.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    });
  }
});

/**
 * Waits until every request is settled: the in-process gateway says so itself; the second process is
 * stopped, and its clean shutdown writes every pending settlement before it exits 0.
 */
async function settleAll(): Promise<void> {
  await t.gateway.settled();
  if (second) expect(await second.stop()).toBe(0);
}
