// The start-up checks of the Redis that holds the money: the verdicts on each kind of server, and the facts
// as real redis-servers report them — with CONFIG disabled (as managed services do) and without INFO.

import { afterEach, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../../src/demo/redis-server.js";
import type { RedisClient } from "../../../src/store/connection/redis.js";
import { closeRedis, connectRedis, createRedis } from "../../../src/store/connection/redis.js";
import { judgeRedis, type RedisFacts, readRedisFacts } from "../../../src/store/connection/redis-checks.js";

const FIT: RedisFacts = {
  address: "r:6379",
  version: "7.2.4",
  aofEnabled: true,
  rdbSchedule: "3600 1",
  maxmemoryPolicy: "noeviction",
};
const STRICT = { allowNoPersistence: false };

describe("judgeRedis", () => {
  it("accepts a Redis 6.2 or newer with AOF and noeviction, without a word", () => {
    expect(judgeRedis(FIT, STRICT)).toEqual({ refusals: [], warnings: [] });
    expect(judgeRedis({ ...FIT, version: "6.2.0" }, STRICT).refusals).toEqual([]);
  });

  it("refuses a Redis older than 6.2", () => {
    expect(judgeRedis({ ...FIT, version: "6.0.16" }, STRICT).refusals).toEqual([
      "Redis at r:6379 is version 6.0.16; the gateway needs 6.2.0 or newer",
    ]);
  });

  it("refuses a Redis that persists nothing, unless allowed, and says how to turn AOF on", () => {
    const none = { ...FIT, aofEnabled: false, rdbSchedule: "" };
    expect(judgeRedis(none, STRICT).refusals).toEqual([
      expect.stringContaining("persists nothing (appendonly no, no RDB snapshots)"),
    ]);
    expect(judgeRedis(none, STRICT).refusals[0]).toContain("CONFIG SET appendonly yes");
    expect(judgeRedis(none, { allowNoPersistence: true })).toEqual({
      refusals: [],
      warnings: [expect.stringContaining("redis.allowNoPersistence is set")],
    });
  });

  it("accepts RDB snapshots alone with a warning, and warns when CONFIG cannot tell", () => {
    expect(judgeRedis({ ...FIT, aofEnabled: false }, STRICT)).toEqual({
      refusals: [],
      warnings: [expect.stringContaining("persists by RDB snapshots only (save 3600 1)")],
    });
    expect(judgeRedis({ ...FIT, aofEnabled: false, rdbSchedule: null }, STRICT)).toEqual({
      refusals: [],
      warnings: [expect.stringContaining("cannot be told (CONFIG GET is not allowed)")],
    });
  });

  it.each([
    "allkeys-lru",
    "allkeys-lfu",
    "allkeys-random",
    "volatile-lru",
    "volatile-lfu",
    "volatile-random",
    "volatile-ttl",
  ])("refuses maxmemory-policy %s, which could delete keys the money depends on", (policy) => {
    const [refusal] = judgeRedis({ ...FIT, maxmemoryPolicy: policy }, STRICT).refusals;
    expect(refusal).toMatch(new RegExp(`^Redis at r:6379 has maxmemory-policy ${policy}: `));
    expect(refusal).toContain("Set maxmemory-policy noeviction");
  });
});

describe("readRedisFacts", () => {
  let server: RedisServer | undefined;
  let client: RedisClient | undefined;
  afterEach(async () => {
    if (client) closeRedis(client);
    await server?.stop();
    client = undefined;
    server = undefined;
  });

  async function connect(args: string[], settings: { username?: string; password?: string } = {}) {
    server = await startRedisServer({ args });
    const redisSettings = { url: server.url, ...settings };
    client = createRedis(redisSettings, "cli");
    await connectRedis(client, redisSettings);
    return client;
  }

  it("reads version, persistence and eviction policy from a real server", async () => {
    const facts = await readRedisFacts(
      await connect(["--appendonly", "yes", "--save", "900 1", "--maxmemory-policy", "volatile-ttl"]),
    );
    expect(facts).toEqual([
      {
        address: `127.0.0.1:${server?.port}`,
        version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
        aofEnabled: true,
        rdbSchedule: "900 1",
        maxmemoryPolicy: "volatile-ttl",
      },
    ]);
  });

  it("does without CONFIG, which managed services disable", async () => {
    const [facts] = await readRedisFacts(await connect(["--rename-command", "CONFIG", ""]));
    expect(facts).toMatchObject({ aofEnabled: false, rdbSchedule: null, maxmemoryPolicy: "noeviction" });
  });

  it("says how to allow INFO to a user that may not run it", async () => {
    const user = ["--user", "gateway", "on", ">gateway-password", "~*", "&*", "+@all", "-info"];
    const redis = await connect(user, { username: "gateway", password: "gateway-password" });
    await expect(readRedisFacts(redis)).rejects.toThrow(
      /refuses INFO to the gateway's user .*ACL SETUSER <user> \+info/,
    );
  });
});
