// Redis' CPU per settlement, with and without a model: what the by-model and monthly usage counters the
// settle script keeps for the dashboard (docs/admin-and-dashboard.md#usage-and-exports) cost Redis. Settles
// batches of 50 reserved requests (SETTLE_BATCH), as the gateway does under load, on a throwaway
// redis-server, and reads Redis' own CPU counters (INFO cpu) around each settle call only: batches of one
// key (the gateway's hot key) and batches whose requests are each of another key of the account, with the
// commands the script runs per settlement.
// `npm run bench:settle`; the figures are in docs/benchmarks.md.

import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { KeyRef } from "../src/core/key-ref.js";
import { startRedisServer } from "../src/demo/redis-server.js";
import { AccountService } from "../src/services/accounts.js";
import { KeyService } from "../src/services/keys.js";
import type { Actor } from "../src/store/audit/audit-store.js";
import { openStores } from "../src/store/stores.js";

const BATCH = Number(process.env.SETTLE_BATCH ?? 50);
const PER_ROUND = 5000;
const ROUNDS = 4;

// With append-only persistence on, as production runs Redis and as `npm run bench` does: every write a
// script makes is also fed to the append-only file, a part of what a settlement costs.
const server = await startRedisServer({ args: ["--appendonly", "yes"] });
const redis = new Redis(server.url);
const ctx = openStores(redis, { prefix: "bench:", timezone: "UTC" });
const actor: Actor = { kind: "cli" };
await new AccountService(ctx).create({ id: "acme", balance: "1000000" }, actor);
const keyService = new KeyService(ctx);
const keys: { ref: KeyRef; hash: string }[] = [];
for (let i = 0; i < BATCH; i++) {
  const { record } = await keyService.create({ accountId: "acme", name: `bench-${i}` }, actor);
  keys.push({ ref: { accountId: "acme", keyId: record.id }, hash: record.hash as string });
}

async function redisCpuSeconds(): Promise<number> {
  const info = await redis.info("cpu");
  const read = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? Number.NaN);
  return read("used_cpu_sys") + read("used_cpu_user");
}

/** Commands Redis has run, by the counts of INFO commandstats, less the bench's own INFO calls. */
async function redisCommands(): Promise<number> {
  const info = await redis.info("commandstats");
  let calls = 0;
  for (const [, name, count] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (name !== "info") calls += Number(count);
  }
  return calls;
}

/** A batch of reserved requests naming `model`, all of the first key or each of another. */
async function reservedBatch(model: string | null, keysPerBatch: "one" | "each") {
  const batch = [];
  for (let i = 0; i < BATCH; i++) {
    const { ref, hash } = keys[keysPerBatch === "one" ? 0 : i] as (typeof keys)[number];
    const reservationId = randomUUID();
    const now = Date.now();
    const periods = ctx.calendar.at(now);
    await ctx.billing.reserve(ref, {
      reservationId,
      amount: 1000,
      tokens: 0,
      keyHash: hash,
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
  return batch;
}

/**
 * Redis CPU (µs) per settlement over `count` settlements of requests naming `model`, each batch of the first
 * key alone or of as many keys as requests.
 */
async function round(
  model: string | null,
  count: number,
  keysPerBatch: "one" | "each" = "one",
): Promise<number> {
  let cpu = 0;
  for (let done = 0; done < count; done += BATCH) {
    const batch = await reservedBatch(model, keysPerBatch);
    const before = await redisCpuSeconds();
    await ctx.billing.settleMany("acme", batch);
    cpu += (await redisCpuSeconds()) - before;
  }
  return (cpu / count) * 1e6;
}

/** Commands the settle script runs per settlement (the EVALSHA itself included), over one batch. */
async function commandsPerSettlement(model: string | null, keysPerBatch: "one" | "each"): Promise<number> {
  const batch = await reservedBatch(model, keysPerBatch);
  const before = await redisCommands();
  await ctx.billing.settleMany("acme", batch);
  return ((await redisCommands()) - before) / BATCH;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
try {
  // Warm up both paths once, then interleave.
  await round(null, 1000);
  await round("demo-small", 1000);
  await round("demo-small", 1000, "each");
  const none: number[] = [];
  const named: number[] = [];
  const spread: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    none.push(await round(null, PER_ROUND));
    named.push(await round("demo-small", PER_ROUND));
    spread.push(await round("demo-small", PER_ROUND, "each"));
  }
  console.log(
    `settle, Redis CPU per request in batches of ${BATCH} (median of ${ROUNDS} rounds of ${PER_ROUND}):`,
  );
  const commands = [
    await commandsPerSettlement(null, "one"),
    await commandsPerSettlement("demo-small", "one"),
    await commandsPerSettlement("demo-small", "each"),
  ].map((n) => n.toFixed(1));
  console.log(`  request without a model: ${median(none).toFixed(1)} µs, ${commands[0]} commands`);
  console.log(
    `  request with a model:    ${median(named).toFixed(1)} µs, ${commands[1]} commands (by-model and monthly counters)`,
  );
  console.log(
    `  the same, each request of another key: ${median(spread).toFixed(1)} µs, ${commands[2]} commands`,
  );
} finally {
  redis.disconnect();
  await server.stop();
}
