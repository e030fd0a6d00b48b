// A real three-master Redis Cluster on loopback, for the tests that prove the scripts and the gateway work
// unchanged on Cluster, with a replica per master for the failover tests. Started and stopped by the test;
// persistence off.

import { execFileSync } from "node:child_process";
import { isPortFree } from "../../src/demo/ports.js";
import { freePort, type RedisServer, startRedisServer } from "../../src/demo/redis-server.js";
import { waitForReplicas } from "./failover.js";
import { waitUntil } from "./wait.js";

export interface RedisCluster {
  nodes: string[];
  servers: RedisServer[];
  /** The nodes as the cluster sees them now (CLUSTER NODES of a node that answers). */
  topology(): ClusterNode[];
  /** A redis-cli command's output from a node that answers (CLUSTER KEYSLOT, …). */
  command(...args: string[]): string;
  stop(): Promise<void>;
}

export interface ClusterNode {
  id: string;
  /** host:port */
  address: string;
  role: "master" | "replica";
  /** Its master's id, for a replica. */
  masterId: string | null;
  failed: boolean;
  /** Slot ranges [first, last] a master serves. */
  slots: [number, number][];
}

export interface ClusterOptions {
  /** Replicas of each master (0). */
  replicas?: number;
  /** cluster-node-timeout (5000): how long a node must be unreachable before a failover. */
  nodeTimeoutMs?: number;
  /** More redis-server arguments for every node. */
  args?: string[];
}

/** A node's cluster bus listens on its port + 10000, which must be a port too. */
const BUS_PORT_OFFSET = 10_000;
const HIGHEST_NODE_PORT = 65_535 - BUS_PORT_OFFSET;

const CLUSTER_ARGS = [
  "--cluster-enabled",
  "yes",
  "--cluster-config-file",
  "nodes.conf",
  // A replica's first sync is not put off for other replicas to join it (5 s by default).
  "--repl-diskless-sync-delay",
  "0",
];

/**
 * One cluster node on a port found free whose bus port (+10000) is a port and free as well. Either can be
 * taken by someone else before redis-server binds them; it then exits, and other ports are tried.
 */
async function startClusterNode(args: string[]): Promise<RedisServer> {
  let failure: unknown = "every port found free was above the highest a node can have";
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await freePort();
    if (port > HIGHEST_NODE_PORT || !(await isPortFree(port + BUS_PORT_OFFSET))) continue;
    try {
      return await startRedisServer({ port, args: [...CLUSTER_ARGS, ...args] });
    } catch (error) {
      failure = error;
    }
  }
  throw new Error(`no cluster node started: ${failure}`);
}

export async function startRedisCluster(size = 3, options: ClusterOptions = {}): Promise<RedisCluster> {
  const replicas = options.replicas ?? 0;
  const args = ["--cluster-node-timeout", String(options.nodeTimeoutMs ?? 5000), ...(options.args ?? [])];
  const servers: RedisServer[] = [];
  for (let i = 0; i < size * (1 + replicas); i++) servers.push(await startClusterNode(args));
  const nodes = servers.map((server) => `127.0.0.1:${server.port}`);
  execFileSync(
    "redis-cli",
    ["--cluster", "create", ...nodes, "--cluster-replicas", String(replicas), "--cluster-yes"],
    { stdio: "ignore" },
  );
  const alive = () => servers.filter((server) => server.process.exitCode === null && !server.process.killed);
  const command = (...commandArgs: string[]): string => {
    for (const server of alive()) {
      try {
        return execFileSync("redis-cli", ["-p", String(server.port), ...commandArgs], {
          timeout: 2000,
        }).toString();
      } catch {
        // Stopped or going away: ask another.
      }
    }
    throw new Error("no cluster node answers");
  };
  const topology = (): ClusterNode[] => parseClusterNodes(command("cluster", "nodes"));
  await waitUntil(
    () =>
      servers.every((server) =>
        execFileSync("redis-cli", ["-p", String(server.port), "cluster", "info"])
          .toString()
          .includes("cluster_state:ok"),
      ) &&
      topology().filter((node) => node.role === "replica").length === size * replicas &&
      // Every replica has had its first sync: its master lists it online.
      servers.every((server) => {
        const info = execFileSync("redis-cli", ["-p", String(server.port), "info", "replication"]).toString();
        return !/^role:master/m.test(info) || (info.match(/state=online/g) ?? []).length === replicas;
      }),
    "the cluster to be ready",
    30_000,
  );
  if (replicas > 0) {
    // A key of each master's slots, for the write whose replication it waits for.
    const candidates = Array.from({ length: 200 }, (_, i) => `probe${i}`);
    const nodes = topology();
    for (const node of nodes.filter((n) => n.role === "master")) {
      const key = candidates.find((candidate) => {
        const slot = Number(command("CLUSTER", "KEYSLOT", candidate));
        return node.slots.some(([a, b]) => slot >= a && slot <= b);
      });
      const replicaPorts = nodes
        .filter((n) => n.masterId === node.id)
        .map((n) => Number(n.address.split(":")[1]));
      await waitForReplicas(Number(node.address.split(":")[1]), replicaPorts, key);
    }
  }
  return {
    nodes,
    servers,
    topology,
    command,
    async stop() {
      for (const server of servers) if (server.process.exitCode === null) server.process.kill("SIGCONT");
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}

/** CLUSTER NODES' lines: "<id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slot>...". */
function parseClusterNodes(text: string): ClusterNode[] {
  return text
    .trim()
    .split("\n")
    .map((line) => {
      const [id, address, flags, master, , , , , ...slots] = line.split(" ");
      const flagList = (flags ?? "").split(",");
      return {
        id: id as string,
        address: (address ?? "").split("@")[0] as string,
        role: flagList.includes("master") ? "master" : "replica",
        masterId: master === "-" ? null : (master ?? null),
        failed: flagList.includes("fail"),
        slots: slots
          .filter((range) => !range.startsWith("["))
          .map((range) => {
            const [first, last] = range.split("-").map(Number);
            return [first as number, (last ?? first) as number];
          }),
      };
    });
}
