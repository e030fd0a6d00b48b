// What the start-up and failover checks (redis-startup.ts) say about replication, on every master: whether a
// replica can acknowledge settlements (redis.settlementReplicas), whether a failover has a replica to promote,
// and whether a master cut off from its replicas stops taking writes (min-replicas-to-write,
// min-replicas-max-lag). Warnings only: replication is the operator's choice, and docs/redis.md says what each
// choice guarantees.

import type { Cluster, Redis } from "ioredis";
import type { RedisClient } from "./redis.js";

export interface ReplicationFacts {
  /** host:port of the master, for messages. */
  address: string;
  connectedReplicas: number;
  /** min-replicas-to-write, or null where CONFIG GET is not allowed. */
  minReplicasToWrite: number | null;
}

export interface ReplicationOptions {
  /** Sentinel or Cluster: a replica may be promoted when a master fails. */
  failover: boolean;
  /** redis.settlementReplicas. */
  settlementReplicas: number | "auto";
}

/** The recommended setting, in the words the warnings use. */
const RECOMMENDED =
  "set min-replicas-to-write 1 and min-replicas-max-lag 10 (in redis.conf, or `redis-cli CONFIG SET` then " +
  "`redis-cli CONFIG REWRITE`; on a managed Redis, in its parameter group)";

/** Warnings about one master's replication. */
export function judgeReplication(facts: ReplicationFacts, options: ReplicationOptions): string[] {
  const at = `Redis at ${facts.address}`;
  const { connectedReplicas: replicas } = facts;
  const warnings: string[] = [];
  const wanted = options.settlementReplicas;
  if (typeof wanted === "number" && wanted > replicas) {
    warnings.push(
      `redis.settlementReplicas asks ${wanted} replica(s) to acknowledge each settlement, but ${at} has ` +
        `${replicas} connected: its settlements stay queued and are sent again until enough acknowledge them ` +
        "(tunnel_gateway_settlements_pending)",
    );
  } else if (options.failover && replicas === 0) {
    warnings.push(
      `${at} has no replica connected: if it fails, nothing can take its place, and no replica can ` +
        "acknowledge its settlements; they count as done once written there",
    );
  }
  if (replicas === 0) return warnings;
  if (wanted === 0) {
    warnings.push(
      `settlements do not wait for a replica (redis.settlementReplicas: 0): a failover of ${at} loses ` +
        "the charges written on it that its replicas had not yet received",
    );
  }
  if (facts.minReplicasToWrite === null) {
    warnings.push(
      `whether ${at} stops taking writes when cut off from its replicas cannot be told (CONFIG GET is not ` +
        `allowed): ${RECOMMENDED}, so that it does not take writes a failover would lose`,
    );
  } else if (facts.minReplicasToWrite === 0) {
    warnings.push(
      `${at} has min-replicas-to-write 0: cut off from its replicas it keeps taking writes that a failover ` +
        `loses (settlements are sent again; reservations, top-ups and key changes are not): ${RECOMMENDED}`,
    );
  }
  return warnings;
}

/** The replication of every server that takes writes: the masters of a Cluster, else the one connection. */
export async function readReplicationFacts(
  client: RedisClient,
  address: (server: Redis) => string,
): Promise<ReplicationFacts[]> {
  const servers: Redis[] = (client as Cluster).isCluster
    ? (client as Cluster).nodes("master")
    : [client as Redis];
  return Promise.all(
    servers.map(async (server) => {
      const info = await server.info("replication");
      const connected = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
      return {
        address: address(server),
        connectedReplicas: connected,
        minReplicasToWrite: await readMinReplicas(server),
      };
    }),
  );
}

/** CONFIG GET min-replicas-to-write, or null where CONFIG is disabled or not allowed. */
async function readMinReplicas(server: Redis): Promise<number | null> {
  try {
    const reply = (await server.config("GET", "min-replicas-to-write")) as string[];
    return reply[1] === undefined ? null : Number(reply[1]);
  } catch {
    return null;
  }
}
