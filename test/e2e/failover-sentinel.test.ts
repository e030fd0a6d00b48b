// A master behind a real Sentinel killed with SIGKILL while 300 requests run through two gateways (two
// replicas of the gateway, sharing the data): every request answered 200 is
// charged exactly once, with its replica in sync and with the replica's link cut shortly before the kill —
// the settlements it never received are sent again once it is promoted (WAIT said they were not on a
// replica), and made there.

import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../src/demo/redis-server.js";
import {
  type AccountBooks,
  cutReplication,
  expectExactBooks,
  REPLICATION_USER_ARGS,
  requestsDuring,
  waitForReplicas,
} from "../helpers/failover.js";
import { PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type Sentinel, startSentinel } from "../helpers/redis-sentinel.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

const temporaryDirectory = temporaryDirectories("tunnel-failover-sentinel-");

let servers: RedisServer[] = [];
let sentinel: Sentinel | undefined;
let upstream: StubUpstream | undefined;
let t: TestGateway | undefined;
/** Every gateway of the test, t first. */
let gateways: TestGateway[] = [];

afterEach(async () => {
  for (const gateway of gateways) await gateway.close();
  gateways = [];
  await upstream?.close();
  await sentinel?.stop();
  for (const server of servers) await server.stop();
  servers = [];
  t = sentinel = upstream = undefined;
});

const cli = (port: number, ...args: string[]) =>
  execFileSync("redis-cli", ["-p", String(port), ...args])
    .toString()
    .trim();

/** A master and its replica in sync, a sentinel watching them, two gateways behind it, and two accounts. */
async function setUp(): Promise<{ master: RedisServer; replica: RedisServer; accounts: AccountBooks[] }> {
  // A replica's first sync is not put off for other replicas to join it (5 s by default).
  const master = await startRedisServer({
    args: [...REPLICATION_USER_ARGS, "--repl-diskless-sync-delay", "0"],
  });
  servers.push(master);
  const replica = await startRedisServer({
    args: [...REPLICATION_USER_ARGS, "--replicaof", "127.0.0.1", String(master.port)],
  });
  servers.push(replica);
  await waitForReplicas(master.port, [replica.port]);
  sentinel = await startSentinel(master.port, temporaryDirectory, { downAfterMs: 1000 });
  upstream = await startStubUpstream({ tokenIntervalMs: 1 });
  const sentinels = [`127.0.0.1:${sentinel.port}`];
  for (let i = 0; i < 2; i++) {
    const gateway = await startTestGateway({
      upstreamUrl: upstream.url,
      config: {
        pricing: PRICING,
        redis: { sentinel: { sentinels, name: "mymaster" }, ...(t && { prefix: t.config.redis.prefix }) },
      },
    });
    t ??= gateway;
    gateways.push(gateway);
    await waitUntil(async () => (await gateway.fetch("/readyz")).status === 200, "the gateway ready");
  }
  const gateway = t as TestGateway;
  const accounts: AccountBooks[] = [];
  for (const accountId of ["north", "south"]) {
    const key = await gateway.newKey({ accountId, balance: "1000" });
    accounts.push({ accountId, keys: [{ id: key.id, value: key.value }], before: 1_000_000_000 });
  }
  // The accounts and keys on the replica too before any request: what the test cuts off is settlements, not
  // the accounts (a run on a loaded machine once promoted a replica that had no account "north").
  await waitForReplicas(master.port, [replica.port]);
  return { master, replica, accounts };
}

async function failover(cut: boolean) {
  const { master, replica, accounts } = await setUp();
  const answers = await requestsDuring(
    gateways,
    accounts.flatMap((account) => account.keys.map((key) => key.value)),
    { total: 300, concurrency: 12, at: 100 },
    async () => {
      if (cut) {
        cutReplication(master.port);
        await new Promise((resolve) => setTimeout(resolve, 400));
      }
      master.process.kill("SIGKILL");
    },
  );
  const port = (sentinel as Sentinel).port;
  await waitUntil(
    () => cli(port, "SENTINEL", "get-master-addr-by-name", "mymaster").endsWith(String(replica.port)),
    "the sentinel to promote the replica",
    30_000,
  );
  for (const g of gateways) await g.gateway.settled(30_000);
  expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(100);
  await expectExactBooks(gateways, accounts, answers);
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

describe("a master behind Sentinel killed while requests run", () => {
  it("charges every request answered 200 exactly once when its replica was in sync", async () => {
    await failover(false);
  });

  it("sends again what the replica never received once it is promoted: none uncharged, none twice", async () => {
    await failover(true);
    expect(await metric("settlements_unreplicated_total")).toBeGreaterThan(0);
    expect(await metric("settlements_replayed_total")).toBeGreaterThan(0);
  });
});
