// A real three-master Redis Cluster on loopback, for the tests that prove the scripts and the gateway work
// unchanged on Cluster. Started and stopped by the test; persistence off.

import { execFileSync } from "node:child_process";
import { isPortFree } from "../../src/demo/ports.js";
import { freePort, type RedisServer, startRedisServer } from "../../src/demo/redis-server.js";
import { waitUntil } from "./wait.js";

export interface RedisCluster {
  nodes: string[];
  servers: RedisServer[];
  stop(): Promise<void>;
}

/** A node's cluster bus listens on its port + 10000, which must be a port too. */
const BUS_PORT_OFFSET = 10_000;
const HIGHEST_NODE_PORT = 65_535 - BUS_PORT_OFFSET;

const CLUSTER_ARGS = [
  "--cluster-enabled",
  "yes",
  "--cluster-config-file",
  "nodes.conf",
  "--cluster-node-timeout",
  "5000",
];

/**
 * One cluster node on a port found free whose bus port (+10000) is a port and free as well. Either can be
 * taken by someone else before redis-server binds them; it then exits, and other ports are tried.
 */
async function startClusterNode(): Promise<RedisServer> {
  let failure: unknown = "every port found free was above the highest a node can have";
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await freePort();
    if (port > HIGHEST_NODE_PORT || !(await isPortFree(port + BUS_PORT_OFFSET))) continue;
    try {
      return await startRedisServer({ port, args: CLUSTER_ARGS });
    } catch (error) {
      failure = error;
    }
  }
  throw new Error(`no cluster node started: ${failure}`);
}

export async function startRedisCluster(size = 3): Promise<RedisCluster> {
  const servers: RedisServer[] = [];
  for (let i = 0; i < size; i++) servers.push(await startClusterNode());
  const nodes = servers.map((server) => `127.0.0.1:${server.port}`);
  execFileSync("redis-cli", ["--cluster", "create", ...nodes, "--cluster-replicas", "0", "--cluster-yes"], {
    stdio: "ignore",
  });
  await waitUntil(
    () =>
      servers.every((server) =>
        execFileSync("redis-cli", ["-p", String(server.port), "cluster", "info"])
          .toString()
          .includes("cluster_state:ok"),
      ),
    "the cluster to be ready",
    30_000,
  );
  return {
    nodes,
    servers,
    async stop() {
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}
