// A real three-master Redis Cluster on loopback, for the tests that prove the scripts and the gateway work
// unchanged on Cluster. Started and stopped by the test; persistence off.

import { execFileSync } from "node:child_process";
import { type RedisServer, startRedisServer } from "../../src/demo/redis-server.js";
import { waitUntil } from "./wait.js";

export interface RedisCluster {
  nodes: string[];
  servers: RedisServer[];
  stop(): Promise<void>;
}

export async function startRedisCluster(size = 3): Promise<RedisCluster> {
  const servers: RedisServer[] = [];
  for (let i = 0; i < size; i++) {
    servers.push(
      await startRedisServer({
        args: [
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          "nodes.conf",
          "--cluster-node-timeout",
          "5000",
        ],
      }),
    );
  }
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
