// The gateway on a real three-node Redis Cluster: every script touches one account's hash slot, so the
// money path's guarantees — no overspend under concurrency, an exact balance — hold there unchanged.

import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { balanceHolds, budgetHolds } from "../helpers/overspend.js";
import { type RedisCluster, startRedisCluster } from "../helpers/redis-cluster.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

let cluster: RedisCluster;
let upstream: StubUpstream;
let t: TestGateway;

beforeAll(async () => {
  cluster = await startRedisCluster();
  upstream = await startStubUpstream({ tokenIntervalMs: 2 });
}, 60_000);

afterAll(async () => {
  await upstream?.close();
  await cluster?.stop();
});

afterEach(async () => {
  await t?.close();
});

async function gateway(): Promise<TestGateway> {
  t = await startTestGateway({
    upstreamUrl: upstream.url,
    config: { pricing: PRICING, redis: { cluster: { nodes: cluster.nodes } } },
  });
  // The gateway connects in the background; wait until it reports ready.
  await waitUntil(
    async () => (await t.fetch("/readyz")).status === 200,
    "the gateway to be ready on the cluster",
  );
  return t;
}

describe("on Redis Cluster", () => {
  it("checks every master at start", async () => {
    await gateway();
    // The suite's nodes persist nothing, allowed for the tests: each master is named in its own warning.
    const checked = t.logs
      .map((line) => /^Redis at (\S+) has append-only persistence off/.exec(line.msg as string)?.[1])
      .filter(Boolean)
      .sort();
    expect(checked).toEqual([...cluster.nodes].sort());
  });

  it("keeps each account in one slot, spreads accounts over the masters, and serves them all", async () => {
    await gateway();
    const keys = [];
    for (let i = 0; i < 12; i++) keys.push(await t.newKey({ accountId: `acct${i}` }));
    // Which masters hold account data, and that all of one account's keys share its slot.
    const held = cluster.servers.map((server) =>
      execFileSync("redis-cli", [
        "-p",
        String(server.port),
        "--scan",
        "--pattern",
        `${t.config.redis.prefix}{a:*`,
      ])
        .toString()
        .split("\n")
        .filter(Boolean),
    );
    expect(held.filter((names) => names.length > 0).length).toBeGreaterThanOrEqual(2);
    for (const names of held) {
      for (const name of names) {
        const tag = /\{a:([^}]+)\}/.exec(name)?.[1];
        const sibling = `${t.config.redis.prefix}{a:${tag}}:account`;
        expect(names, `${name} and ${sibling} share a slot`).toContain(sibling);
      }
    }
    for (const key of keys) {
      const res = await t.fetch("/v1/balance", { key: key.value });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { account_id: string }).account_id).toBe(key.accountId);
    }
  });

  it("never overspends a key's budget under 200 parallel requests", async () => {
    await gateway();
    await budgetHolds(
      t,
      [t.url],
      () => t.gateway.settled(),
      () => t.logs,
    );
  });

  it("keeps the account's balance exact and never below zero under 200 parallel requests", async () => {
    await gateway();
    await balanceHolds(
      t,
      [t.url],
      () => t.gateway.settled(),
      () => t.logs,
    );
  });
});
