// Settlements that must reach a replica: against a real master and its replica (redis-server --replicaof),
// where they run, the WAIT after them, one WAIT for the calls answered meanwhile, and what a replica that
// does not answer (its process stopped) or a master without one makes of them.

import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../../src/demo/redis-server.js";
import { AccountService } from "../../../src/services/accounts.js";
import { KeyService } from "../../../src/services/keys.js";
import type { Settlement } from "../../../src/store/billing/settle-script.js";
import {
  closeRedis,
  connectRedis,
  createRedis,
  type RedisClient,
} from "../../../src/store/connection/redis.js";
import { type ReplicaAckSettings, ReplicaAcks } from "../../../src/store/connection/replica-acks.js";
import { openStores, type Stores } from "../../../src/store/stores.js";
import { ACTOR } from "../../helpers/actor.js";
import { TestClock } from "../../helpers/clock.js";
import { waitForReplicas } from "../../helpers/failover.js";

let servers: RedisServer[] = [];
let clients: RedisClient[] = [];
let acks: ReplicaAcks[] = [];

afterEach(async () => {
  for (const replica of acks) replica.close();
  for (const client of clients) closeRedis(client);
  for (const server of servers) {
    if (server.process.signalCode === "SIGSTOP" || server.process.exitCode === null)
      server.process.kill("SIGCONT");
    await server.stop();
  }
  servers = [];
  clients = [];
  acks = [];
});

/** A master, and a replica of it once `withReplica`, in sync. */
async function topology(withReplica: boolean): Promise<{ master: RedisServer; replica?: RedisServer }> {
  // A replica's first sync is not put off for other replicas to join it (5 s by default).
  const master = await startRedisServer({ args: ["--repl-diskless-sync-delay", "0"] });
  servers.push(master);
  if (!withReplica) return { master };
  const replica = await startRedisServer({ args: ["--replicaof", "127.0.0.1", String(master.port)] });
  servers.push(replica);
  await waitForReplicas(master.port, [replica.port]);
  return { master, replica };
}

async function storesOn(
  master: RedisServer,
  settings: ReplicaAckSettings,
): Promise<{ stores: Stores; acks: ReplicaAcks; redis: RedisClient }> {
  const redis = createRedis({ url: master.url }, "gateway");
  clients.push(redis);
  await connectRedis(redis, { url: master.url });
  const replicaAcks = new ReplicaAcks(redis, settings);
  acks.push(replicaAcks);
  const clock = new TestClock();
  const stores = openStores(redis, { prefix: "r:", timezone: "UTC", now: clock.now, replicaAcks });
  await new AccountService(stores).create({ id: "acme", balance: "100" }, ACTOR);
  return { stores, acks: replicaAcks, redis };
}

async function reservedSettlement(stores: Stores): Promise<Settlement> {
  const { record } = await new KeyService(stores).create({ accountId: "acme", name: "k" }, ACTOR);
  const ref = { accountId: "acme", keyId: record.id };
  const now = stores.now();
  const reservationId = randomUUID();
  await stores.billing.reserve(ref, {
    reservationId,
    amount: 1_000_000,
    tokens: 0,
    keyHash: record.hash as string,
    now,
    periods: stores.calendar.at(now),
    expiresAt: now + 60_000,
    model: { kind: "none" },
  });
  return {
    ref,
    reservationId,
    logEntry: "{}",
    logEntryWithBodies: "",
    model: null,
    cost: 500_000,
    promptTokens: 1,
    completionTokens: 1,
    failed: false,
    estimated: false,
    latencyMs: 1,
    periods: stores.calendar.at(now),
    day: stores.calendar.dayOf(now),
    now,
  };
}

describe("settlements that must reach a replica", () => {
  it("go on a connection of their own and are replicated once the master's replica acknowledges them", async () => {
    const { master } = await topology(true);
    const { stores, acks, redis } = await storesOn(master, { replicas: "auto", timeoutMs: 2000 });
    const settlement = await reservedSettlement(stores);
    const route = await acks.route(stores.redisKeys.account("acme"));
    expect(route.replicas).toBe(1);
    expect(route.client).not.toBe(redis);
    const { results, replicated } = await stores.billing.settleReplicated("acme", [settlement]);
    expect(results[0]).toMatchObject({ duplicate: false });
    expect(replicated).toBe(true);
    expect(acks.counts).toEqual({ waits: 1, short: 0 });
  });

  it("share one WAIT among the calls answered while one is in flight", async () => {
    const { master } = await topology(true);
    const { stores, acks } = await storesOn(master, { replicas: "auto", timeoutMs: 2000 });
    const settlements = [];
    for (let i = 0; i < 20; i++) settlements.push(await reservedSettlement(stores));
    const calls = await Promise.all(settlements.map((s) => stores.billing.settleReplicated("acme", [s])));
    expect(calls.every((call) => call.replicated)).toBe(true);
    expect(acks.counts.waits).toBeLessThan(20);
  });

  it("are not replicated while the replica does not answer, and are duplicates, then replicated, when sent again", async () => {
    const { master, replica } = await topology(true);
    const { stores } = await storesOn(master, { replicas: "auto", timeoutMs: 200 });
    const settlement = await reservedSettlement(stores);
    replica?.process.kill("SIGSTOP");
    const first = await stores.billing.settleReplicated("acme", [settlement]);
    expect(first).toMatchObject({ results: [{ duplicate: false }], replicated: false });
    replica?.process.kill("SIGCONT");
    const again = await stores.billing.settleReplicated("acme", [settlement]);
    expect(again).toEqual({ results: [{ duplicate: true }], replicated: true });
    expect((await stores.accounts.require("acme")).balance).toBe(99_500_000);
  });

  it("acknowledge nothing written on a socket the connection has since replaced", async () => {
    const { master } = await topology(true);
    const { stores, acks } = await storesOn(master, { replicas: "auto", timeoutMs: 2000 });
    const route = await acks.route(stores.redisKeys.account("acme"));
    const connection = route.client as Redis;
    const socket = acks.socketOf(route);
    await connection.set("r:probe", "1");
    const replaced = once(connection, "ready");
    connection.disconnect(true);
    await replaced;
    // A WAIT on the new socket would find nothing of this connection's to wait for, and answer at once.
    expect(await acks.acknowledged(route, socket)).toBe(false);
    await connection.set("r:probe", "2");
    expect(await acks.acknowledged(route, acks.socketOf(route))).toBe(true);
  });

  it("run on the gateway's connection without waiting where the master has no replica (auto)", async () => {
    const { master } = await topology(false);
    const { stores, acks, redis } = await storesOn(master, { replicas: "auto", timeoutMs: 200 });
    const route = await acks.route(stores.redisKeys.account("acme"));
    expect(route.client).toBe(redis);
    expect(route.replicas).toBe(0);
    const { replicated } = await stores.billing.settleReplicated("acme", [await reservedSettlement(stores)]);
    expect(replicated).toBe(true);
    expect(acks.counts.waits).toBe(0);
  });

  it("are never replicated when more replicas are asked for than the master has", async () => {
    const { master } = await topology(false);
    const { stores } = await storesOn(master, { replicas: 1, timeoutMs: 100 });
    const { results, replicated } = await stores.billing.settleReplicated("acme", [
      await reservedSettlement(stores),
    ]);
    expect(results[0]).toMatchObject({ duplicate: false });
    expect(replicated).toBe(false);
  });
});
