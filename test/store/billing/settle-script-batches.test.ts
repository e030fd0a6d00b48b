// The settle script's promise for a batch (settle-n.lua): one call that settles several requests of an account
// leaves Redis exactly as one call per request, in the same order, would have — the counters it gathers by
// key and writes at the end included. Random pre-states and batches, each applied both ways to the same copy
// of the keyspace (DUMP/RESTORE), then every key compared.

import { randomUUID } from "node:crypto";
import fc from "fast-check";
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { Settled, Settlement } from "../../../src/store/billing/settle-script.js";
import { ACTOR } from "../../helpers/actor.js";
import { leaseAt, settlementAt } from "../../helpers/billing-scripts.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const keyShape = fc.record({
  budget: fc.constantFrom(undefined, "3", "20"),
  logBodies: fc.boolean(),
  // Fields already in the day's usage hash: none, a few, or close to MAX_USAGE_FIELDS (256).
  usageFields: fc.constantFrom(0, 0, 3, 248, 250, 251, 252, 253, 256),
  usageTtl: fc.boolean(),
  recent: fc.nat({ max: 4 }),
  lease: fc.boolean(),
});

const settlementShape = fc.record({
  key: fc.nat({ max: 2 }),
  kind: fc.constantFrom("reserved", "reserved", "missing", "leased", "duplicate"),
  model: fc.constantFrom(null, "a", "b:7b", "pre-1", "c", "d"),
  cost: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3_000_000 })),
  promptTokens: fc.constantFrom(0, 7, 1000),
  completionTokens: fc.constantFrom(0, 3),
  cachedTokens: fc.constantFrom(0, 5),
  failed: fc.boolean(),
  estimated: fc.boolean(),
  latencyMs: fc.constantFrom(0, 40, 120, 999.6),
  bodies: fc.boolean(),
  hold: fc.integer({ min: 1, max: 2_000_000 }),
  share: fc.constantFrom(0, 2),
});

const scenario = fc.record({
  keys: fc.array(keyShape, { minLength: 1, maxLength: 3 }),
  logKeep: fc.constantFrom(0, 1, 3, 100),
  monthExists: fc.boolean(),
  settlements: fc.array(settlementShape, { minLength: 1, maxLength: 14 }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

interface KeyState {
  type: string;
  value: unknown;
  ttl: number;
}

/** Every key under the store's prefix: its type, its whole value, its time to live (ms, -1 for none). */
async function keyspace(store: TestStore): Promise<Map<string, KeyState>> {
  const redis = store.redis as Redis;
  const states = new Map<string, KeyState>();
  for (const key of await store.allKeys()) {
    const type = await redis.type(key);
    let value: unknown;
    if (type === "hash") {
      const flat = (await redis.call("HGETALL", key)) as string[];
      const pairs: string[][] = [];
      for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i] as string, flat[i + 1] as string]);
      // A small hash (listpack) lists its fields in the order they were created: compare that order too.
      value =
        pairs.length <= 128 ? pairs : pairs.sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));
    } else if (type === "list") value = await redis.lrange(key, 0, -1);
    else if (type === "zset") value = await redis.call("ZRANGE", key, "0", "-1", "WITHSCORES");
    else if (type === "stream") value = await redis.xrange(key, "-", "+");
    else if (type === "set") value = (await redis.smembers(key)).sort();
    else value = await redis.get(key);
    states.set(key, { type, value, ttl: await redis.pttl(key) });
  }
  return states;
}

async function snapshot(store: TestStore): Promise<[string, Buffer, number][]> {
  const redis = store.redis as Redis;
  const keys = await store.allKeys();
  return Promise.all(
    keys.map(
      async (key): Promise<[string, Buffer, number]> => [
        key,
        await redis.dumpBuffer(key),
        await redis.pttl(key),
      ],
    ),
  );
}

async function restore(store: TestStore, dump: [string, Buffer, number][]): Promise<void> {
  const redis = store.redis as Redis;
  const keys = await store.allKeys();
  if (keys.length > 0) await redis.del(...keys);
  for (const [key, value, ttl] of dump) await redis.restore(key, Math.max(ttl, 0), value, "REPLACE");
}

/** Builds the scenario's accounts, keys, reservations, leases and counters; returns the settlements. */
async function prepare(
  store: TestStore,
  { keys, monthExists, settlements }: Scenario,
): Promise<Settlement[]> {
  const redis = store.redis as Redis;
  const now = store.clock.now();
  const day = store.calendar.dayOf(now);
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  const made = [];
  for (const shape of keys) {
    const { record } = await store.keyService.create(
      { accountId: "acme", name: "k", budget: shape.budget, logBodies: shape.logBodies },
      ACTOR,
    );
    const ref = { accountId: "acme", keyId: record.id };
    const usage = store.redisKeys.usage("acme", record.id, day);
    for (let i = 0; i < shape.usageFields; i++) await redis.hset(usage, `m:pre-${i}:requests`, "1");
    if (shape.usageFields > 0 && shape.usageTtl) await redis.expire(usage, 3600);
    const log = store.redisKeys.requestLog("acme", record.id);
    for (let i = 0; i < shape.recent; i++) await redis.lpush(log, `old-${i}`);
    const leaseId = `lease:r1:${record.id}`;
    if (shape.lease) await store.billing.lease(ref, leaseAt(store, leaseId, 5_000_000));
    made.push({ ref, hash: record.hash as string, leaseId });
  }
  if (monthExists) {
    const month = store.redisKeys.month("acme", day.slice(0, 7));
    await redis.hset(month, "requests", 3, "cost", 10);
    await redis.expire(month, 7200);
  }
  const batch: Settlement[] = [];
  for (const shape of settlements) {
    const previous = batch.at(-1);
    if (shape.kind === "duplicate" && previous) {
      batch.push(previous);
      continue;
    }
    const key = made[shape.key % made.length] as (typeof made)[number];
    const reservationId = randomUUID();
    if (shape.kind === "reserved" || shape.kind === "duplicate") {
      await store.billing.reserve(key.ref, {
        reservationId,
        amount: shape.cost,
        tokens: 0,
        keyHash: key.hash,
        now,
        periods: store.calendar.at(now),
        expiresAt: now + 60_000,
        model: { kind: "none" },
      });
    }
    batch.push({
      ref: key.ref,
      ...settlementAt(store, reservationId, shape.cost, {
        logEntry: JSON.stringify({ request_id: reservationId }),
        logEntryWithBodies: shape.bodies ? JSON.stringify({ request_id: reservationId, body: "…" }) : "",
        model: shape.model,
        promptTokens: shape.promptTokens,
        completionTokens: shape.completionTokens,
        cachedTokens: shape.cachedTokens,
        failed: shape.failed,
        estimated: shape.estimated,
        latencyMs: shape.latencyMs,
        ...(shape.kind === "leased" && {
          leaseHold: { leaseId: key.leaseId, hold: shape.hold, marker: randomUUID(), share: shape.share },
        }),
      }),
    });
  }
  return batch;
}

function expectSameKeyspace(
  batched: Map<string, KeyState>,
  oneByOne: Map<string, KeyState>,
  /** Keys whose lifetime is not compared. */
  ttlAside: (key: string) => boolean = () => false,
): void {
  expect([...batched.keys()]).toEqual([...oneByOne.keys()]);
  for (const [key, state] of batched) {
    const other = oneByOne.get(key) as KeyState;
    expect({ key, type: state.type, value: state.value }).toEqual({
      key,
      type: other.type,
      value: other.value,
    });
    if (ttlAside(key)) continue;
    // Lifetimes are set by separate calls a few milliseconds apart: the same within a tolerance.
    expect({ key, expires: state.ttl >= 0 }).toEqual({ key, expires: other.ttl >= 0 });
    expect(Math.abs(state.ttl - other.ttl), key).toBeLessThan(5_000);
  }
}

describe("a batch of settlements in one settle call", () => {
  const opened: TestStore[] = [];
  afterEach(() => {
    for (const store of opened.splice(0)) store.close();
  });

  it("leaves every key and reply as settling them one call each, in the same order, would", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const store = await openStore({ billing: { requestLogMaxPerKey: s.logKeep } });
        opened.push(store);
        const batch = await prepare(store, s);
        const before = await snapshot(store);

        const together = await store.billing.settleMany("acme", batch);
        const batched = await keyspace(store);

        await restore(store, before);
        const alone: Settled[] = [];
        for (const settlement of batch) alone.push(...(await store.billing.settleMany("acme", [settlement])));
        const oneByOne = await keyspace(store);

        expect(together).toEqual(alone);
        expectSameKeyspace(batched, oneByOne);
        store.close();
        opened.pop();
      }),
      { numRuns: 100 },
    );
  });
});

describe("a batch that fails half-way", () => {
  let store: TestStore;
  afterEach(() => store.close());

  it("keeps the counters of the settlements it made, as calls one each up to the failing one would", async () => {
    store = await openStore();
    const scenarioOf = (model: "a" | "c"): Scenario["settlements"][number] => ({
      key: 0,
      kind: "reserved",
      model,
      cost: 1_000,
      promptTokens: 7,
      completionTokens: 3,
      cachedTokens: 0,
      failed: false,
      estimated: false,
      latencyMs: 40,
      bodies: false,
      hold: 1,
      share: 0,
    });
    const batch = await prepare(store, {
      keys: [
        { budget: undefined, logBodies: false, usageFields: 0, usageTtl: false, recent: 0, lease: false },
      ],
      logKeep: 100,
      monthExists: false,
      settlements: [scenarioOf("a"), scenarioOf("c"), scenarioOf("a")],
    });
    // The second settlement's day has a usage hash of another type: the call fails there, after its charge.
    const badDay = "2000-01-01";
    const settlements = batch.map((s, i) => (i === 1 ? { ...s, day: badDay } : s));
    await (store.redis as Redis).set(
      store.redisKeys.usage("acme", batch[0]?.ref.keyId as string, badDay),
      "x",
    );
    const before = await snapshot(store);

    await expect(store.billing.settleMany("acme", settlements)).rejects.toThrow(/WRONGTYPE/);
    const batched = await keyspace(store);

    await restore(store, before);
    await store.billing.settleMany("acme", settlements.slice(0, 1));
    await expect(store.billing.settleMany("acme", settlements.slice(1, 2))).rejects.toThrow(/WRONGTYPE/);
    // The settlement hash's lifetime is set at the end of a call, which the failed call never reached and the
    // first call alone did (the same before settle counters were gathered).
    expectSameKeyspace(batched, await keyspace(store), (key) => key.includes(":settled:"));
    const usage = await store.redis.hgetall(
      store.redisKeys.usage("acme", batch[0]?.ref.keyId as string, batch[0]?.day as string),
    );
    expect(usage).toMatchObject({ lat_le_50: "1", "m:a:requests": "1", cost: "1000" });
  });
});
