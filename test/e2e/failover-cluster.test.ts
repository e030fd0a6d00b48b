// A master of a real Redis Cluster (3 masters, a replica each) killed with SIGKILL while 300 requests run
// through two gateways (two replicas of the gateway, sharing the data): every request answered 200 is charged
// exactly once, with the replica in sync and with its link cut shortly
// before the kill — the settlements it never received are sent again to it once promoted (WAIT said they were
// not on a replica), and made there. Without WAIT (settlementReplicas 0) the same failover loses charges, and
// the replica's books watch names the account and the micro-rubles. A promoted master is checked as a master.

import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AccountBooks,
  cutReplication,
  expectExactBooks,
  REPLICATION_USER_ARGS,
  requestsDuring,
} from "../helpers/failover.js";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type ClusterNode, type RedisCluster, startRedisCluster } from "../helpers/redis-cluster.js";
import { testPrefix } from "../helpers/store.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

let cluster: RedisCluster;
let upstream: StubUpstream;
let t: TestGateway | undefined;
/** Every gateway of the test, t first. */
let gateways: TestGateway[] = [];
/** Masters not yet killed by a test, each test takes one. */
const untouched: string[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster(3, { replicas: 1, nodeTimeoutMs: 1000, args: REPLICATION_USER_ARGS });
  untouched.push(
    ...cluster
      .topology()
      .filter((node) => node.role === "master")
      .map((node) => node.address),
  );
  upstream = await startStubUpstream({ tokenIntervalMs: 1 });
}, 60_000);

afterAll(async () => {
  await upstream?.close();
  await cluster?.stop();
});

afterEach(async () => {
  for (const gateway of gateways) await gateway.close();
  gateways = [];
  t = undefined;
});

const portOf = (address: string) => Number(address.split(":")[1]);
const slotOf = (key: string) => Number(cluster.command("CLUSTER", "KEYSLOT", key));
const servedBy = (node: ClusterNode, slot: number) => node.slots.some(([a, b]) => slot >= a && slot <= b);

/**
 * `count` gateways sharing the data, and four accounts with a key each: two whose slot the next untouched
 * master serves (the victim), two elsewhere.
 */
async function setUp(
  redis: Record<string, unknown> = {},
  count = 2,
): Promise<{ victim: ClusterNode; accounts: AccountBooks[] }> {
  const prefix = testPrefix();
  const address = untouched.shift() as string;
  const victim = cluster.topology().find((node) => node.address === address) as ClusterNode;
  const on: string[] = [];
  const off: string[] = [];
  for (let i = 0; (on.length < 2 || off.length < 2) && i < 1000; i++) {
    const id = `acct${i}`;
    (servedBy(victim, slotOf(`${prefix}{a:${id}}:account`)) ? on : off).push(id);
  }
  for (let i = 0; i < count; i++) {
    const gateway = await startTestGateway({
      upstreamUrl: upstream.url,
      config: {
        pricing: PRICING,
        redis: { cluster: { nodes: cluster.nodes }, prefix, ...redis },
        billing: { driftCheckSeconds: 1 },
      },
    });
    gateways.push(gateway);
    await waitUntil(async () => (await gateway.fetch("/readyz")).status === 200, "the gateway ready");
  }
  t = gateways[0] as TestGateway;
  const gateway = t;
  const accounts: AccountBooks[] = [];
  for (const accountId of [...on.slice(0, 2), ...off.slice(0, 2)]) {
    const key = await gateway.newKey({ accountId, balance: "1000" });
    accounts.push({ accountId, keys: [{ id: key.id, value: key.value }], before: 1_000_000_000 });
  }
  return { victim, accounts };
}

/** Kills the victim (after cutting its replica's link, when asked) once 100 of 300 requests are answered. */
async function failover(victim: ClusterNode, accounts: AccountBooks[], cut: boolean) {
  const server = cluster.servers.find((s) => s.port === portOf(victim.address));
  const answers = await requestsDuring(
    gateways,
    accounts.flatMap((account) => account.keys.map((key) => key.value)),
    { total: 300, concurrency: 12, at: 100 },
    async () => {
      if (cut) {
        cutReplication(portOf(victim.address));
        await new Promise((resolve) => setTimeout(resolve, 400));
      }
      server?.process.kill("SIGKILL");
    },
  );
  // The replica takes over; then every settlement still queued goes.
  await waitUntil(
    () => {
      const nodes = cluster.topology();
      const masters = nodes.filter(
        (node) => node.role === "master" && !node.failed && node.address !== victim.address,
      );
      return (
        masters.reduce((sum, node) => sum + node.slots.reduce((n, [a, b]) => n + b - a + 1, 0), 0) === 16384
      );
    },
    "the replica to take over the killed master's slots",
    30_000,
  );
  for (const g of gateways) await g.gateway.settled(30_000);
  expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(100);
  return answers;
}

/** A counter summed over every gateway. */
async function metric(name: string): Promise<number> {
  let sum = 0;
  for (const gateway of gateways) {
    const text = await (await fetch(`${gateway.gateway.metricsUrl}/metrics`)).text();
    sum += Number(new RegExp(`^tunnel_gateway_${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
  }
  return sum;
}

describe("a Cluster master failing over to its replica", () => {
  it("checks the promoted master as a master: a replica that would evict keys is reported once it takes over", async () => {
    t = await startTestGateway({
      upstreamUrl: upstream.url,
      config: { pricing: PRICING, redis: { cluster: { nodes: cluster.nodes } } },
    });
    gateways.push(t);
    const gateway = t;
    await waitUntil(async () => (await gateway.fetch("/readyz")).status === 200, "the gateway ready");
    const master = cluster.topology().find((node) => node.address === untouched[0]) as ClusterNode;
    const replica = cluster.topology().find((node) => node.masterId === master.id) as ClusterNode;
    const cli = (...args: string[]) =>
      execFileSync("redis-cli", ["-p", String(portOf(replica.address)), ...args]);
    cli("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
    try {
      // A graceful failover: the replica takes over, the master becomes its replica.
      cli("CLUSTER", "FAILOVER");
      await waitUntil(
        () =>
          gateway.logs.some(
            (line) =>
              line.msg === "Redis no longer passes the start-up checks" &&
              String(line.err).includes(`Redis at ${replica.address} has maxmemory-policy volatile-lru`),
          ),
        "the promoted master to be checked",
        20_000,
      );
      expect((await json(await gateway.fetch("/healthz"))).status).toBe("ok");
    } finally {
      cli("CONFIG", "SET", "maxmemory-policy", "noeviction");
    }
    untouched[0] = replica.address;
  });
});

describe("a Cluster master killed while requests run", () => {
  it("charges every request answered 200 exactly once when its replica was in sync", async () => {
    const { victim, accounts } = await setUp();
    const answers = await failover(victim, accounts, false);
    await expectExactBooks(gateways, accounts, answers);
  });

  it("sends again what the replica never received once it is promoted: none uncharged, none twice", async () => {
    const { victim, accounts } = await setUp();
    const answers = await failover(victim, accounts, true);
    await expectExactBooks(gateways, accounts, answers);
    // Some settlements were answered by the killed master while its replica was cut off: not acknowledged,
    // sent again, and made on the promoted master, which never had them.
    expect(await metric("settlements_unreplicated_total")).toBeGreaterThan(0);
    expect(await metric("settlements_replayed_total")).toBeGreaterThan(0);
    const replayed = gateways
      .flatMap((g) => g.logs)
      .filter((line) => line.msg === "settlement lost in a failover was made again");
    const victims = new Set(accounts.slice(0, 2).map((account) => account.accountId));
    expect(replayed.every((line) => victims.has(line.account as string))).toBe(true);
  });

  it("loses charges in the same failover without WAIT, and the books watch names the account and the µ₽", async () => {
    // One gateway: its books watch sees every charge the failover lost.
    const { victim, accounts } = await setUp({ settlementReplicas: 0 }, 1);
    await failover(victim, accounts, true);
    const gateway = t as TestGateway;
    const lines = gateway.logs.filter((line) => line.msg === "request");
    const lost: { accountId: string; micros: number }[] = [];
    for (const { accountId, before } of accounts) {
      const logged = lines
        .filter((line) => line.account === accountId)
        .reduce((sum, line) => sum + Math.round((line.cost_rub as number) * 1e6), 0);
      const charged = before - (await gateway.store.accounts.require(accountId)).balance;
      if (charged !== logged) lost.push({ accountId, micros: charged - logged });
    }
    expect(lost.length).toBeGreaterThan(0);
    await waitUntil(
      () =>
        lost.every(({ accountId }) =>
          gateway.logs.some((line) => line.account === accountId && line.level === 50),
        ),
      "the books watch to report every account that lost charges",
      10_000,
    );
    for (const { accountId, micros } of lost) {
      const line = gateway.logs.find((l) => l.account === accountId && l.level === 50);
      expect(line).toMatchObject({ difference_micros: micros });
      expect(line?.msg).toBe(
        `books drift on account ${accountId}: Redis holds ${-micros} µ₽ less than this replica charged`,
      );
    }
  });
});
