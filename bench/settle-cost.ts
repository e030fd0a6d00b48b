// Redis' CPU per settlement, with and without a model: what the by-model and monthly usage counters the
// settle script keeps for the dashboard (docs/admin-and-dashboard.md#usage-and-exports) cost Redis. Settles
// batches of 50 reserved requests, as the gateway does under load, on a throwaway redis-server, and reads
// Redis' own CPU counters (INFO cpu) around each settle call only. `npm run bench:settle`; the figures are in
// docs/benchmarks.md.

import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { startRedisServer } from "../src/demo/redis-server.js";
import { AccountService } from "../src/services/accounts.js";
import { KeyService } from "../src/services/keys.js";
import type { Actor } from "../src/store/audit/audit-store.js";
import { openStores } from "../src/store/stores.js";

const BATCH = 50;
const PER_ROUND = 5000;
const ROUNDS = 4;

const server = await startRedisServer();
const redis = new Redis(server.url);
const ctx = openStores(redis, { prefix: "bench:", timezone: "UTC" });
const actor: Actor = { kind: "cli" };
await new AccountService(ctx).create({ id: "acme", balance: "1000000" }, actor);
const { record } = await new KeyService(ctx).create({ accountId: "acme", name: "bench" }, actor);
const ref = { accountId: "acme", keyId: record.id };

async function redisCpuSeconds(): Promise<number> {
  const info = await redis.info("cpu");
  const read = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? Number.NaN);
  return read("used_cpu_sys") + read("used_cpu_user");
}

/** Redis CPU (µs) per settlement over `count` settlements of requests naming `model`. */
async function round(model: string | null, count: number): Promise<number> {
  let cpu = 0;
  for (let done = 0; done < count; done += BATCH) {
    const batch = [];
    for (let i = 0; i < BATCH; i++) {
      const reservationId = randomUUID();
      const now = Date.now();
      const periods = ctx.calendar.at(now);
      await ctx.billing.reserve(ref, {
        reservationId,
        amount: 1000,
        tokens: 0,
        keyHash: record.hash as string,
        now,
        periods,
        expiresAt: now + 60_000,
        model: { kind: "none" },
      });
      batch.push({
        ref,
        reservationId,
        logEntry: "{}",
        logEntryWithBodies: "",
        model,
        cost: 1000,
        promptTokens: 10,
        completionTokens: 20,
        failed: false,
        estimated: false,
        latencyMs: 5,
        periods,
        day: ctx.calendar.dayOf(now),
        now,
      });
    }
    const before = await redisCpuSeconds();
    await ctx.billing.settleMany("acme", batch);
    cpu += (await redisCpuSeconds()) - before;
  }
  return (cpu / count) * 1e6;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
try {
  // Warm up both paths once, then interleave.
  await round(null, 1000);
  await round("demo-small", 1000);
  const none: number[] = [];
  const named: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    none.push(await round(null, PER_ROUND));
    named.push(await round("demo-small", PER_ROUND));
  }
  console.log(
    `settle, Redis CPU per request in batches of ${BATCH} (median of ${ROUNDS} rounds of ${PER_ROUND}):`,
  );
  console.log(`  request without a model: ${median(none).toFixed(1)} µs`);
  console.log(`  request with a model:    ${median(named).toFixed(1)} µs (by-model and monthly counters)`);
} finally {
  redis.disconnect();
  await server.stop();
}
