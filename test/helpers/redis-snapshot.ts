// Every key under a test's prefix with its type, its whole value and whether it expires: taken before and
// after a change that must be refused, the two are compared whole, so that "a refusal writes nothing" is
// checked for every key — a lookup, an index, an audit entry — not only for the ones a test thought of.

import type { Redis } from "ioredis";
import type { RedisClient } from "../../src/store/connection/redis.js";

export type RedisSnapshot = Record<string, { type: string; value: unknown; expires: boolean }>;

async function readWhole(redis: Redis, key: string, type: string): Promise<unknown> {
  switch (type) {
    case "string":
      return redis.get(key);
    case "hash":
      return Object.fromEntries(
        Object.entries(await redis.hgetall(key)).sort(([a], [b]) => a.localeCompare(b)),
      );
    case "list":
      return redis.lrange(key, "0", "-1");
    case "set":
      return (await redis.smembers(key)).sort();
    case "zset":
      return redis.zrange(key, "0", "-1", "WITHSCORES");
    case "stream":
      return redis.xrange(key, "-", "+");
    default:
      throw new Error(`the snapshot does not know Redis type ${type} (key ${key})`);
  }
}

/** Every key under `prefix`, read whole. */
export async function redisSnapshot(client: RedisClient, prefix: string): Promise<RedisSnapshot> {
  const redis = client as Redis;
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  const snapshot: RedisSnapshot = {};
  for (const key of keys.sort()) {
    const type = await redis.type(key);
    if (type === "none") continue;
    snapshot[key] = { type, value: await readWhole(redis, key, type), expires: (await redis.pttl(key)) >= 0 };
  }
  return snapshot;
}
