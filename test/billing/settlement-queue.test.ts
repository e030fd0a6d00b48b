// No settlement may be lost: one that fails because Redis is away is retried until Redis is back, and
// charges exactly once. The test stops a Redis of its own (with append-only persistence, so that the
// data survives) in the middle and starts it again on the same port and data.

import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_BATCH, SettlementQueue } from "../../src/billing/settlement-queue.js";
import { PeriodCalendar } from "../../src/core/periods.js";
import { isConnectionError } from "../../src/core/redis-errors.js";
import { type RedisServer, startRedisServer } from "../../src/demo/redis-server.js";
import { AccountService } from "../../src/services/accounts.js";
import { KeyService } from "../../src/services/keys.js";
import { DEFAULT_EVENT_SETTINGS, EventStore } from "../../src/store/accounts/event-store.js";
import { BillingStore } from "../../src/store/billing/billing-store.js";
import type { Settled, Settlement } from "../../src/store/billing/settle-script.js";
import type { RedisClient } from "../../src/store/connection/redis.js";
import { connectRedis, createRedis } from "../../src/store/connection/redis.js";
import { type ReplicaAckSettings, ReplicaAcks } from "../../src/store/connection/replica-acks.js";
import type { RedisObserver } from "../../src/store/connection/timing.js";
import { RedisKeys } from "../../src/store/redis-keys.js";
import { openStores, type Stores } from "../../src/store/stores.js";
import { ACTOR } from "../helpers/actor.js";
import { redisTimings } from "../helpers/channels.js";
import { TestClock } from "../helpers/clock.js";

let server: RedisServer | undefined;
let redis: RedisClient | undefined;

afterEach(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** What the queue reported, in order; next() waits for the next report that has not been taken yet. */
class Reports<T> {
  private readonly buffered: T[] = [];
  private readonly waiters: ((report: T) => void)[] = [];

  readonly push = (report: T): void => {
    const waiter = this.waiters.shift();
    if (waiter) waiter(report);
    else this.buffered.push(report);
  };

  next(): Promise<T> {
    if (this.buffered.length > 0) return Promise.resolve(this.buffered.shift() as T);
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** The gateway's connection to `server` (kept for afterEach to close) and a BillingStore on it, prefix "q:". */
async function billingOn(
  server: RedisServer,
  lateSettlementSeconds: number,
  observe?: RedisObserver,
  acks?: ReplicaAckSettings,
): Promise<{ redis: RedisClient; billing: BillingStore }> {
  const connection = createRedis({ url: server.url }, "gateway");
  redis = connection;
  await connectRedis(connection, { url: server.url });
  const keys = new RedisKeys("q:");
  const billing = new BillingStore(
    connection,
    keys,
    { usageRetentionDays: 31, lateSettlementSeconds, requestLogMaxPerKey: 10, requestLogRetentionDays: 30 },
    new EventStore(connection, keys, DEFAULT_EVENT_SETTINGS, Date.now),
    observe,
    acks ? new ReplicaAcks(connection, acks) : null,
  );
  return { redis: connection, billing };
}

function settleInput(reservationId: string, calendar: PeriodCalendar, now: number): Omit<Settlement, "ref"> {
  return {
    reservationId,
    logEntry: "{}",
    logEntryWithBodies: "",
    model: null,
    cost: 1,
    promptTokens: 0,
    completionTokens: 0,
    failed: false,
    estimated: false,
    latencyMs: 1,
    periods: calendar.at(now),
    day: calendar.dayOf(now),
    now,
  };
}

/** An account with keys, and `count` reservations of 1 ₽ on each key, made at the context's time. */
async function reserved(
  context: Stores,
  billing: BillingStore,
  accountId: string,
  keys: number,
  count: number,
): Promise<{ keyIds: string[]; settlements: Settlement[][] }> {
  await new AccountService(context).create({ id: accountId, balance: "1000" }, ACTOR);
  const keyIds: string[] = [];
  const settlements: Settlement[][] = [];
  for (let k = 0; k < keys; k++) {
    const { record } = await new KeyService(context).create({ accountId, name: `k${k}` }, ACTOR);
    const ref = { accountId, keyId: record.id };
    keyIds.push(record.id);
    const ofKey: Settlement[] = [];
    for (let i = 0; i < count; i++) {
      const reservationId = randomUUID();
      const now = context.now();
      await billing.reserve(ref, {
        tokens: 0,
        keyHash: record.hash as string,
        reservationId,
        amount: 1_000_000,
        now,
        periods: context.calendar.at(now),
        expiresAt: now + 600_000,
        model: { kind: "none" },
      });
      ofKey.push({
        ref,
        keyName: `k${k}`,
        ...settleInput(reservationId, context.calendar, now),
        cost: 250_000,
      });
    }
    settlements.push(ofKey);
  }
  return { keyIds, settlements };
}

describe("SettlementQueue", () => {
  it("writes the settlements of one account that finish together in one script call", async () => {
    server = await startRedisServer();
    const timings = redisTimings();
    const operations = timings.seen;
    const { redis, billing } = await billingOn(server, 60, timings.events);
    const context = openStores(redis, { prefix: "q:", timezone: "UTC", now: new TestClock().now });
    const acme = await reserved(context, billing, "acme", 2, 2);
    const beta = await reserved(context, billing, "beta", 1, 1);
    const settled = new Reports<{ settlement: Settlement; result: Settled }>();
    const queue = new SettlementQueue(billing, {
      settled: (settlement, result) => settled.push({ settlement, result }),
    });
    operations.length = 0;

    // Submitted in one turn: acme's four go in one call, beta's in another, once the batch window closes.
    for (const settlement of [...acme.settlements.flat(), ...(beta.settlements[0] as Settlement[])]) {
      queue.submit(settlement);
    }
    expect(queue.pending).toBe(5);
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await settled.next());
    expect(operations.map(([operation]) => operation)).toEqual(["settle", "settle"]);
    expect(results.every(({ result }) => !result.duplicate)).toBe(true);
    expect(queue.pending).toBe(0);
    expect((await context.accounts.require("acme")).balance).toBe(1_000_000_000 - 4 * 250_000);
    expect((await context.accounts.require("beta")).balance).toBe(1_000_000_000 - 250_000);
    expect(await billing.reserved("acme")).toEqual({ account: 0, keys: {} });

    // A full batch goes at once; flush() sends what waits for the window without waiting for it.
    const many = await reserved(context, billing, "many", 1, MAX_BATCH + 1);
    operations.length = 0;
    for (const settlement of many.settlements[0] as Settlement[]) queue.submit(settlement);
    expect(await queue.flush(10_000)).toBe(0);
    queue.close();
    expect(operations.map(([operation]) => operation)).toEqual(["settle", "settle"]);
    expect((await context.accounts.require("many")).balance).toBe(1_000_000_000 - (MAX_BATCH + 1) * 250_000);
    timings.stop();
  });

  it("carries on when a hook throws: every settlement is written and the failure reported, never unhandled", async () => {
    server = await startRedisServer();
    const { redis, billing } = await billingOn(server, 60);
    const context = openStores(redis, { prefix: "q:", timezone: "UTC", now: new TestClock().now });
    const acme = await reserved(context, billing, "acme", 1, 3);
    const hookFailures: string[] = [];
    const queue = new SettlementQueue(billing, {
      settled: () => {
        // As the budget gauge once did for a balance past -2^53.
        throw new TypeError("money must be an integer number of micro-rubles");
      },
      pendingChanged: () => {
        throw new Error("a gauge broke");
      },
      hookFailed: (hook) => hookFailures.push(hook),
    });
    for (const settlement of acme.settlements.flat()) queue.submit(settlement);
    expect(await queue.flush(10_000)).toBe(0);
    queue.close();
    expect(hookFailures.filter((hook) => hook === "settled")).toHaveLength(3);
    expect(hookFailures).toContain("pendingChanged");
    expect((await context.accounts.require("acme")).balance).toBe(1_000_000_000 - 3 * 250_000);
  });

  it("retries a batch Redis refused one settlement at a time, so that a bad one cannot take the others with it", async () => {
    server = await startRedisServer();
    const { redis, billing } = await billingOn(server, 60);
    const context = openStores(redis, { prefix: "q:", timezone: "UTC", now: new TestClock().now });
    const { keyIds, settlements } = await reserved(context, billing, "acme", 3, 1);
    // The middle key's reserved amount is not a number: its settlement fails every time, before it writes
    // anything of its own; the one before it in the batch has been made by then, the one after it not.
    await redis.hset("q:{a:acme}:reserved", keyIds[1] as string, "garbled");
    const [good1, bad, good2] = settlements.map((ofKey) => ofKey[0] as Settlement);
    const failed: { settlement: Settlement; error: unknown }[] = [];
    const settled: { settlement: Settlement; result: Settled }[] = [];
    const queue = new SettlementQueue(billing, {
      failed: (settlement, error) => failed.push({ settlement, error }),
      settled: (settlement, result) => settled.push({ settlement, result }),
    });
    for (const settlement of [good1, bad, good2] as Settlement[]) queue.submit(settlement);
    expect(await queue.flush(10_000)).toBe(0);
    queue.close();

    expect(failed.map(({ settlement }) => settlement)).toEqual([bad]);
    expect(String(failed[0]?.error)).toMatch(/not an integer/);
    // The first was made by the refused call (its retry finds it settled), the last by its own retry.
    expect(settled.map(({ settlement, result }) => [settlement, result.duplicate])).toEqual([
      [good1, true],
      [good2, false],
    ]);
    expect((await context.accounts.require("acme")).balance).toBe(1_000_000_000 - 2 * 250_000);
    // Only the bad one's reservation is still held: its garbled amount, and 1 ₽ in the account's total.
    expect(await redis.hgetall("q:{a:acme}:reserved")).toEqual({
      [keyIds[1] as string]: "garbled",
      "*": "1000000",
    });
  });

  it("retries a settlement while Redis is away and charges it exactly once when Redis is back", async () => {
    server = await startRedisServer({ args: ["--appendonly", "yes", "--appendfsync", "always"] });
    const { port, dir } = server;
    const { redis, billing } = await billingOn(server, 86_400);
    const clock = new TestClock();
    const context = openStores(redis, { prefix: "q:", timezone: "UTC", now: clock.now });
    const { calendar } = context;
    await new AccountService(context).create({ id: "acme", balance: "10" }, ACTOR);
    const { record } = await new KeyService(context).create({ accountId: "acme", name: "k" }, ACTOR);
    const ref = { accountId: "acme", keyId: record.id };
    const reservationId = randomUUID();
    const now = clock.now();
    await billing.reserve(ref, {
      tokens: 0,
      keyHash: record.hash as string,
      reservationId,
      amount: 3_000_000,
      now,
      periods: calendar.at(now),
      expiresAt: now + 600_000,
      model: { kind: "none" },
    });

    const retries = new Reports<unknown>();
    const pending: number[] = [];
    const queue = new SettlementQueue(billing, {
      retrying: (_settlement, error) => retries.push(error),
      pendingChanged: (n) => pending.push(n),
    });

    await server.stop({ keepData: true });
    const settlement = {
      ref,
      keyName: "k",
      reservationId,
      logEntry: "{}",
      logEntryWithBodies: "",
      model: null,
      cost: 1_250_000,
      promptTokens: 1,
      completionTokens: 2,
      failed: false,
      estimated: false,
      latencyMs: 10,
      periods: calendar.at(now),
      day: calendar.dayOf(now),
      now,
    };
    queue.submit(settlement);
    // Redis is away: the attempt fails, and the settlement waits for its retry.
    expect(isConnectionError(await retries.next())).toBe(true);
    expect(queue.pending).toBe(1);
    expect(queue.waitingForRetry).toBe(1);

    server = await startRedisServer({ port, dir, args: ["--appendonly", "yes"] });
    expect(await queue.flush(10_000)).toBe(0);
    queue.close();
    expect(pending.at(-1)).toBe(0);
    expect((await context.accounts.require("acme")).balance).toBe(10_000_000 - 1_250_000);
    expect(await billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    // Submitting the same settlement again (a retry whose first reply was lost) changes nothing.
    queue.submit(settlement);
    expect(await queue.flush(5000)).toBe(0);
    expect((await context.accounts.require("acme")).balance).toBe(8_750_000);
  });

  it("gives up on a settlement Redis keeps refusing, and reports it for reconciliation", async () => {
    server = await startRedisServer();
    const { redis, billing } = await billingOn(server, 60);
    // A key of the wrong type makes the script fail with a reply error every time.
    await redis.set("q:{a:acme}:resv:rec", "not a hash");
    const failed: unknown[] = [];
    const queue = new SettlementQueue(billing, { failed: (_s, error) => failed.push(error) });
    const calendar = new PeriodCalendar("UTC");
    queue.submit({
      ref: { accountId: "acme", keyId: "key_x" },
      keyName: "k",
      ...settleInput("r", calendar, 0),
    });
    expect(await queue.flush(10_000)).toBe(0);
    queue.close();
    expect(failed).toHaveLength(1);
    expect(String(failed[0])).toMatch(/WRONGTYPE/);
  });

  it("keeps a settlement through a long outage, and counts only the failures Redis answers towards giving up", async () => {
    server = await startRedisServer({ args: ["--appendonly", "yes", "--appendfsync", "always"] });
    const { port, dir } = server;
    const { redis, billing } = await billingOn(server, 60);
    // Once Redis is back, the script fails with a reply error every time: a key of the wrong type.
    await redis.set("q:{a:acme}:resv:rec", "not a hash");
    await server.stop({ keepData: true });

    const reports = new Reports<{ retrying: boolean; error: unknown }>();
    const queue = new SettlementQueue(billing, {
      retrying: (_settlement, error) => reports.push({ retrying: true, error }),
      failed: (_settlement, error) => reports.push({ retrying: false, error }),
    });
    queue.submit({
      ref: { accountId: "acme", keyId: "key_x" },
      keyName: "k",
      ...settleInput("r", new PeriodCalendar("UTC"), 0),
    });
    // More failed attempts while Redis is away than a refused settlement gets; flush() retries at once.
    for (let outage = 0; outage < 8; outage++) {
      const report = await reports.next();
      expect(report.retrying).toBe(true);
      expect(isConnectionError(report.error)).toBe(true);
      void queue.flush(0);
    }

    server = await startRedisServer({ port, dir, args: ["--appendonly", "yes"] });
    if (redis.status !== "ready") await once(redis, "ready");
    const refusals: { retrying: boolean; error: unknown }[] = [];
    while (refusals.length === 0 || refusals.at(-1)?.retrying) {
      void queue.flush(0);
      const report = await reports.next();
      if (!isConnectionError(report.error)) refusals.push(report);
    }
    queue.close();
    // Five refusals in all: the first four are retried, the fifth drops it for reconciliation.
    expect(refusals.map((r) => r.retrying)).toEqual([true, true, true, true, false]);
    for (const refusal of refusals) expect(String(refusal.error)).toMatch(/WRONGTYPE/);
    expect(queue.pending).toBe(0);
  });

  it("sends a settlement no replica acknowledges again until billing.lateSettlementSeconds, then gives it up once, charged once", async () => {
    // One replica asked for on a server that has none: every WAIT times out, as with a replica cut off.
    server = await startRedisServer();
    const { redis, billing } = await billingOn(server, 60, undefined, { replicas: 1, timeoutMs: 20 });
    const clock = new TestClock();
    const context = openStores(redis, { prefix: "q:", timezone: "UTC", now: clock.now });
    const { settlements } = await reserved(context, billing, "acme", 1, 1);
    let calls = 0;
    const counting: Pick<BillingStore, "settleReplicated"> = {
      settleReplicated: (...args) => {
        calls++;
        return billing.settleReplicated(...args);
      },
    };
    const events = new Reports<string>();
    const settled: Settled[] = [];
    const queue = new SettlementQueue(
      counting,
      {
        unreplicated: () => events.push("unreplicated"),
        waiting: (reason, n) => events.push(`waiting ${reason} ${n}`),
        recovered: () => events.push("recovered"),
        givenUp: (given) => events.push(`given up ${given.length}`),
        settled: (_s, result) => settled.push(result),
      },
      { now: clock.now, lateSettlementMs: 60_000 },
    );
    queue.submit((settlements[0] as Settlement[])[0] as Settlement);
    // Answered, not acknowledged: queued, and the wait told once however often it is sent again.
    expect(await events.next()).toBe("unreplicated");
    expect(await events.next()).toBe("waiting replica 1");
    expect(await events.next()).toBe("unreplicated");
    expect(queue.unsettled.of("acme")).toEqual({ count: 1, cost: 250_000 });
    expect(settled).toEqual([]);

    clock.advance(60_000);
    // Past the bound it is given up (before it is sent again, or when an attempt in flight is answered), done
    // with its first answer, and the wait is over.
    let event = await events.next();
    if (event === "unreplicated") event = await events.next();
    expect(event).toBe("given up 1");
    expect(await events.next()).toBe("recovered");
    expect(settled).toMatchObject([{ duplicate: false }]);
    expect(queue.pending).toBe(0);
    expect(queue.unsettled.of("acme")).toEqual({ count: 0, cost: 0 });
    const sent = calls;
    expect(sent).toBeGreaterThanOrEqual(2);
    // Never sent again, and charged once however often it was sent.
    expect(await queue.flush(1000)).toBe(0);
    expect(calls).toBe(sent);
    expect((await context.accounts.require("acme")).balance).toBe(1_000_000_000 - 250_000);
    queue.close();
  });
});
