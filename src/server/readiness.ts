// /readyz: whether this replica should get traffic. Not while it drains, nor before its Redis is connected
// and checked, nor while Redis does not answer within a second. On a Cluster, its masters are asked for
// their view of it (CLUSTER INFO): a Cluster that is down (cluster_state:fail — with the default
// cluster-require-full-coverage, as soon as one slot has no master) refuses every command, so the replica is
// not ready; one that still serves while some slots have no reachable master (coverage not required, or a
// master suspected but not yet failed over) keeps the replica ready — the other replicas share the same
// Cluster, and taking them all out would refuse every account instead of those of the missing slots — and
// says so (docs/redis.md, "Readiness").

import { Cluster } from "ioredis";
import type { RedisClient } from "../store/connection/redis.js";

const READINESS_TIMEOUT_MS = 1000;
const CLUSTER_SLOTS = 16_384;

export interface ReadinessState {
  draining(): boolean;
  /** Redis has passed the start-up checks. */
  checked(): boolean;
}

/** Ready (with what is degraded, if anything), or not and why. */
export type Readiness = { ready: true; degraded?: string } | { ready: false; reason: string };

const READY: Readiness = { ready: true };
const REDIS_UNAVAILABLE: Readiness = { ready: false, reason: "redis unavailable" };

export function readinessOf(redis: RedisClient, state: ReadinessState): () => Promise<Readiness> {
  return async () => {
    if (state.draining()) return { ready: false, reason: "shutting down" };
    if (redis.status !== "ready" || !state.checked()) return REDIS_UNAVAILABLE;
    if (redis instanceof Cluster) return clusterReadiness(redis);
    return (await answered(redis.ping())) === null ? REDIS_UNAVAILABLE : READY;
  };
}

async function clusterReadiness(cluster: Cluster): Promise<Readiness> {
  const views = (
    await Promise.all(cluster.nodes("master").map((node) => answered(node.cluster("INFO"))))
  ).flatMap((info) => (typeof info === "string" ? [clusterView(info)] : []));
  if (views.length === 0) return REDIS_UNAVAILABLE;
  const unserved = Math.max(...views.map((view) => CLUSTER_SLOTS - view.slotsOk));
  const slots = `${unserved} of ${CLUSTER_SLOTS} slots`;
  if (views.some((view) => view.state !== "ok")) {
    return { ready: false, reason: `redis cluster down: ${slots} without a master` };
  }
  return unserved > 0
    ? { ready: true, degraded: `redis cluster: ${slots} without a reachable master` }
    : READY;
}

/** What CLUSTER INFO says of the Cluster's state and of the slots served by a master that is not failing. */
function clusterView(info: string): { state: string; slotsOk: number } {
  const field = (name: string) => new RegExp(`^${name}:(\\S+)`, "m").exec(info)?.[1];
  return { state: field("cluster_state") ?? "fail", slotsOk: Number(field("cluster_slots_ok") ?? 0) };
}

/** The reply, or null when the command fails or takes longer than READINESS_TIMEOUT_MS. */
async function answered<T>(command: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      command,
      new Promise<never>((_, reject) => {
        timer = setTimeout(reject, READINESS_TIMEOUT_MS, new Error("timeout"));
      }),
    ]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
