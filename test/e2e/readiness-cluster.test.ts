// /readyz on a real Redis Cluster (three masters on loopback) that loses a master with no replica to take
// over: not ready while the Cluster is down (with the default cluster-require-full-coverage every command is
// refused); ready, saying how many slots have no reachable master, once the Cluster serves the rest
// (cluster-require-full-coverage no). docs/redis.md, "Readiness", says why.

import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type RedisCluster, startRedisCluster } from "../helpers/redis-cluster.js";
import { waitUntil } from "../helpers/wait.js";

let cluster: RedisCluster | undefined;
let t: TestGateway | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
  await cluster?.stop();
  cluster = undefined;
}, 60_000);

function cli(port: number, ...args: string[]): string {
  return execFileSync("redis-cli", ["-p", String(port), ...args]).toString();
}

async function readyz(gateway: TestGateway): Promise<{ status: number; body: unknown }> {
  const res = await gateway.fetch("/readyz");
  return { status: res.status, body: await res.json() };
}

describe("/readyz on a Redis Cluster that loses a master", () => {
  it("is not ready while the Cluster is down, and ready but degraded while it serves the other slots", async () => {
    cluster = await startRedisCluster();
    const [first, second, third] = cluster.servers as [
      (typeof cluster.servers)[number],
      (typeof cluster.servers)[number],
      (typeof cluster.servers)[number],
    ];
    // A master is failed a second after it stops answering, not five.
    for (const server of cluster.servers) cli(server.port, "config", "set", "cluster-node-timeout", "1000");
    t = await startTestGateway({ config: { redis: { cluster: { nodes: cluster.nodes } } } });
    await waitUntil(async () => (await readyz(t as TestGateway)).status === 200, "the gateway ready");
    expect(await readyz(t)).toEqual({ status: 200, body: { status: "ready" } });

    const slots = ownedSlots(third.port);
    await third.stop();
    await waitUntil(
      async () => (await readyz(t as TestGateway)).status === 503,
      "readiness to turn 503",
      20_000,
    );
    expect(await readyz(t)).toEqual({
      status: 503,
      body: { status: "unavailable", reason: `redis cluster down: ${slots} of 16384 slots without a master` },
    });

    for (const server of [first, second])
      cli(server.port, "config", "set", "cluster-require-full-coverage", "no");
    await waitUntil(async () => (await readyz(t as TestGateway)).status === 200, "readiness back", 20_000);
    expect(await readyz(t)).toEqual({
      status: 200,
      body: {
        status: "ready",
        degraded: `redis cluster: ${slots} of 16384 slots without a reachable master`,
      },
    });
  }, 60_000);
});

/** How many slots the master at `port` serves. */
function ownedSlots(port: number): number {
  const myself = cli(port, "cluster", "myid").trim();
  const nodes = cli(port, "cluster", "nodes").split("\n");
  const line = nodes.find((l) => l.startsWith(myself)) ?? "";
  return line
    .split(" ")
    .slice(8)
    .reduce((sum, range) => {
      const [from, to] = range.split("-").map(Number);
      return sum + ((to ?? from ?? 0) - (from ?? 0) + 1);
    }, 0);
}
