// The start-up checks of the Redis that holds the money, run by `serve` once its connection is first ready
// (on every master of a Cluster, on the master Sentinel names): a version that runs our scripts, persistence
// that survives a restart, and no eviction. A Redis that fails them is refused with the fix, since running
// on it would lose balances and keys silently — on a restart, or when memory runs out.
//
// The facts come from INFO, which managed Redis services allow where they disable CONFIG; only whether RDB
// snapshots are scheduled needs CONFIG GET save, and where that is refused the check says it could not tell.

import type { Cluster, Redis } from "ioredis";
import type { RedisClient } from "./redis.js";

/** The oldest Redis the gateway supports. */
export const MIN_REDIS_VERSION = [6, 2, 0] as const;

export interface RedisFacts {
  /** host:port of the server, for messages. */
  address: string;
  version: string;
  aofEnabled: boolean;
  /** The `save` schedule ("" when RDB snapshots are off), or null when CONFIG GET is not allowed. */
  rdbSchedule: string | null;
  maxmemoryPolicy: string;
}

export interface RedisVerdict {
  /** Reasons to refuse this Redis, each with its fix; empty when it may be used. */
  refusals: string[];
  /** What the operator should know but does not stop the gateway. */
  warnings: string[];
}

export interface CheckOptions {
  /** redis.allowNoPersistence: accept a Redis that persists nothing (throwaway setups only). */
  allowNoPersistence: boolean;
}

/** What is wrong with one Redis server, judged from its facts. */
export function judgeRedis(facts: RedisFacts, options: CheckOptions): RedisVerdict {
  const refusals: string[] = [];
  const warnings: string[] = [];
  const at = `Redis at ${facts.address}`;

  if (compareVersions(facts.version, MIN_REDIS_VERSION) < 0) {
    refusals.push(
      `${at} is version ${facts.version}; the gateway needs ${MIN_REDIS_VERSION.join(".")} or newer`,
    );
  }

  const rdbOn = facts.rdbSchedule !== null && facts.rdbSchedule.trim() !== "";
  if (facts.aofEnabled) {
    // Append-only persistence: what the gateway asks for.
  } else if (rdbOn) {
    warnings.push(
      `${at} persists by RDB snapshots only (save ${facts.rdbSchedule}): a crash loses the charges and ` +
        "top-ups made since the last snapshot; turn append-only persistence on (appendonly yes) to keep them",
    );
  } else if (options.allowNoPersistence) {
    warnings.push(
      `${at} has append-only persistence off and redis.allowNoPersistence is set: a restart of this Redis ` +
        "may lose every balance and key",
    );
  } else if (facts.rdbSchedule === null) {
    warnings.push(
      `${at} has append-only persistence off, and whether it takes RDB snapshots cannot be told (CONFIG GET ` +
        "is not allowed): make sure the service persists the data, or turn append-only persistence on",
    );
  } else {
    refusals.push(
      `${at} persists nothing (appendonly no, no RDB snapshots): a restart would lose every balance and key. ` +
        "Turn append-only persistence on: `redis-cli CONFIG SET appendonly yes` then `redis-cli CONFIG REWRITE` " +
        "(or `appendonly yes` in redis.conf); for a throwaway Redis, set redis.allowNoPersistence: true",
    );
  }

  if (facts.maxmemoryPolicy !== "noeviction") {
    const victims = facts.maxmemoryPolicy.startsWith("volatile-")
      ? "keys that expire — the daily usage counters a key's spending is recounted from when its budget " +
        "period changes, and the recent-request lists —"
      : "any key — balances, API keys, budgets —";
    refusals.push(
      `${at} has maxmemory-policy ${facts.maxmemoryPolicy}: when memory runs out it would delete ${victims} ` +
        "silently. Set maxmemory-policy noeviction (in redis.conf, or `redis-cli CONFIG SET maxmemory-policy " +
        "noeviction` then `redis-cli CONFIG REWRITE`; on a managed Redis, in its parameter group): writes then " +
        "fail when memory runs out, and the gateway answers 503 rather than lose money",
    );
  }
  return { refusals, warnings };
}

/** Reads the facts of every server that holds data: the masters of a Cluster, else the one connection. */
export async function readRedisFacts(client: RedisClient): Promise<RedisFacts[]> {
  const servers: Redis[] = isCluster(client) ? client.nodes("master") : [client as Redis];
  return Promise.all(servers.map(readServerFacts));
}

async function readServerFacts(server: Redis): Promise<RedisFacts> {
  let info: string;
  try {
    // The default sections hold server, persistence and memory; 6.2 takes no list of sections.
    info = await server.info();
  } catch (error) {
    const message = (error as Error).message;
    if (!/^NOPERM/.test(message)) throw error;
    throw new Error(
      `Redis at ${addressOf(server)} refuses INFO to the gateway's user (${message}); the gateway reads the version, ` +
        "persistence and eviction policy from it at start: allow it, e.g. `ACL SETUSER <user> +info`",
    );
  }
  const field = (name: string) => new RegExp(`^${name}:(.*)$`, "m").exec(info)?.[1]?.trim() ?? "";
  return {
    address: addressOf(server),
    version: field("redis_version"),
    aofEnabled: field("aof_enabled") === "1",
    rdbSchedule: await readSaveSchedule(server),
    maxmemoryPolicy: field("maxmemory_policy"),
  };
}

/** host:port of the server, as configured; through Sentinel, which names no address, the connection's peer. */
export function addressOf(server: Redis): string {
  const viaSentinel = (server.options.sentinels?.length ?? 0) > 0;
  const host = viaSentinel ? server.stream?.remoteAddress : server.options.host;
  const port = viaSentinel ? server.stream?.remotePort : server.options.port;
  return `${host?.includes(":") ? `[${host}]` : host}:${port}`;
}

/** CONFIG GET save, or null where CONFIG is disabled or not allowed (managed Redis, ACLs). */
async function readSaveSchedule(server: Redis): Promise<string | null> {
  try {
    const reply = (await server.config("GET", "save")) as string[];
    return reply[1] ?? null;
  } catch {
    return null;
  }
}

function isCluster(client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true;
}

/** Compares a dotted version with [major, minor, patch]: negative when older. */
function compareVersions(version: string, minimum: readonly number[]): number {
  const parts = version.split(".").map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < minimum.length; i++) {
    const difference = (parts[i] ?? 0) - (minimum[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
