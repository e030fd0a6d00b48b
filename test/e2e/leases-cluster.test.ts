// Admission leases on a real three-master Redis Cluster, with two gateway replicas: requests admitted on the
// lease, no overspend of a budget with 200 parallel requests, exact reconciliation, a revocation reaching the
// other replica through the change feed (ioredis' sharded subscribers, one per master), and the feed's
// subscribers killed on every master: every lease dropped, requests served without them, leases taken again.

import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { changeFeedName } from "../../src/billing/lease-service.js";
import { TestClock } from "../helpers/clock.js";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { ADMIN, COST, chat, leases, revokedOnTheOtherReplica, WORST, warm } from "../helpers/leases.js";
import { killClientNamed } from "../helpers/redis-clients.js";
import { type RedisCluster, startRedisCluster } from "../helpers/redis-cluster.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

let cluster: RedisCluster;
let upstream: StubUpstream;
let replicas: TestGateway[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster();
  upstream = await startStubUpstream({ tokenIntervalMs: 1 });
}, 60_000);

afterAll(async () => {
  await upstream?.close();
  await cluster?.stop();
});

afterEach(async () => {
  for (const replica of replicas) await replica.close();
  replicas = [];
});

async function ready(t: TestGateway): Promise<TestGateway> {
  replicas.push(t);
  await waitUntil(async () => (await t.fetch("/readyz")).status === 200, "the gateway ready on the cluster");
  return t;
}

async function twoReplicas(): Promise<[TestGateway, TestGateway]> {
  const clock = new TestClock();
  const config = { pricing: PRICING, admin: { token: ADMIN }, redis: { cluster: { nodes: cluster.nodes } } };
  const a = await ready(await startTestGateway({ upstreamUrl: upstream.url, clock, config }));
  const b = await ready(
    await startTestGateway({
      upstreamUrl: upstream.url,
      clock,
      config: { ...config, redis: { ...config.redis, prefix: a.config.redis.prefix } },
    }),
  );
  return [a, b];
}

describe("admission leases on a Redis Cluster", () => {
  it("admit on the lease, never overspend a budget under 200 parallel requests, and reconcile", async () => {
    const [a, b] = await twoReplicas();
    const key = await a.newKey({ budget: "1", period: "day", balance: "10" });
    await warm(a, key.value);
    await warm(b, key.value);
    const before = leases(a).book.admitted + leases(b).book.admitted;
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const res = await chat(i % 2 ? a : b, key.value);
        const body = await json(res);
        return res.status === 200 ? 200 : `${res.status} ${body.error.code}`;
      }),
    );
    for (const t of [a, b]) await t.gateway.settled();
    expect(statuses.filter((s) => s !== 200).every((s) => s === "403 budget_exceeded")).toBe(true);
    expect(leases(a).book.admitted + leases(b).book.admitted).toBeGreaterThan(before);
    const spent = (await a.store.keys.get({ accountId: "acme", keyId: key.id }))?.spent ?? -1;
    expect(spent).toBeLessThanOrEqual(1_000_000);
    expect(spent / COST).toBeGreaterThanOrEqual(Math.floor(1_000_000 / WORST));
    const lines = [a, b].flatMap((t) => t.logs.filter((line) => line.msg === "request"));
    expect(lines.reduce((sum, line) => sum + Math.round((line.cost_rub as number) * 1e6), 0)).toBe(spent);
    expect((await a.store.accounts.require("acme")).balance).toBe(10_000_000 - spent);
    expect(await a.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("refuse a revoked key on the other replica once the change arrives through its slot's master", async () => {
    const [a, b] = await twoReplicas();
    await revokedOnTheOtherReplica(a, b);
  });

  it("drop every lease when a master's subscriber is lost, serve without them, and take them again", async () => {
    const [a, b] = await twoReplicas();
    const key = await a.newKey();
    await warm(b, key.value);
    // The account's channel lives on one master; its subscriber there is the one to cut.
    const name = `ioredis-cluster(ssubscriber):${changeFeedName(leases(b).book.replicaId)}`;
    let killed = 0;
    for (const node of cluster.nodes) {
      const admin = new Redis(`redis://${node}`);
      try {
        await killClientNamed(admin, name);
        killed++;
      } catch {
        // No subscriber of this replica on that master (no channel of its accounts there).
      } finally {
        admin.disconnect();
      }
    }
    expect(killed).toBeGreaterThanOrEqual(1);
    await waitUntil(() => leases(b).book.stats().leases === 0, "replica b dropping its leases");
    const during = await chat(b, key.value);
    expect(during.status).toBe(200);
    await during.text();
    await warm(b, key.value);
    for (const t of [a, b]) await t.gateway.settled();
    expect(await a.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });
});
