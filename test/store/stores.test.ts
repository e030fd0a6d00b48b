// The stores the CLI, the admin API and the gateway share: every store over one connection
// under one prefix, the billing calendar in the configured zone, the clock, and the request path's Redis
// timings reported to whoever watches. On the suite's Redis.

import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { hashApiKey } from "../../src/auth/api-key.js";
import { AccountService } from "../../src/services/accounts.js";
import { KeyService } from "../../src/services/keys.js";
import { closeRedis, connectRedis, createRedis, type RedisClient } from "../../src/store/connection/redis.js";
import { openStores } from "../../src/store/stores.js";
import { ACTOR } from "../helpers/actor.js";
import { redisTimings } from "../helpers/channels.js";
import { testPrefix } from "../helpers/store.js";

let redis: RedisClient;
beforeEach(async () => {
  const url = inject("redisUrl");
  redis = createRedis({ url }, "gateway");
  await connectRedis(redis, { url });
});
afterEach(() => closeRedis(redis));

async function keysUnder(prefix: string): Promise<string[]> {
  return (await (redis as import("ioredis").Redis).keys(`${prefix}*`)).sort();
}

describe("openStores", () => {
  it("keeps everything its stores write under its prefix, and sees nothing of another prefix", async () => {
    const prefix = testPrefix();
    const other = testPrefix();
    const context = openStores(redis, { prefix, timezone: "UTC" });
    await new AccountService(context).create({ id: "acme", balance: "5" }, ACTOR);
    await new KeyService(context).create({ accountId: "acme", name: "k" }, ACTOR);
    const written = await keysUnder(prefix);
    expect(written.length).toBeGreaterThan(4);
    expect(written.every((key) => key.startsWith(prefix))).toBe(true);
    expect(await openStores(redis, { prefix: other, timezone: "UTC" }).accounts.list()).toEqual([]);
  });

  it("keeps the billing calendar in the configured zone, and the clock it is given or the wall clock", () => {
    const at = Date.parse("2026-11-21T22:30:00Z");
    const moscow = openStores(redis, { prefix: "p:", timezone: "Europe/Moscow", now: () => at });
    expect(moscow.now()).toBe(at);
    expect(moscow.calendar.dayOf(at)).toBe("2026-11-22");
    const wall = openStores(redis, { prefix: "p:", timezone: "UTC" });
    const before = Date.now();
    expect(wall.now()).toBeGreaterThanOrEqual(before);
    expect(wall.now()).toBeLessThanOrEqual(Date.now());
    expect(() => openStores(redis, { prefix: "p:", timezone: "Mars/Olympus" })).toThrow(RangeError);
  });

  it("reports how long the request path's Redis operations take when asked to, and only those", async () => {
    const prefix = testPrefix();
    const timings = redisTimings();
    const context = openStores(redis, { prefix, timezone: "UTC", observe: timings.events });
    await new AccountService(context).create({ id: "acme", balance: "5" }, ACTOR);
    const { record, value } = await new KeyService(context).create({ accountId: "acme", name: "k" }, ACTOR);
    expect(timings.seen).toEqual([]);
    const ref = await context.keys.lookup(hashApiKey(value));
    expect(ref).toEqual({ accountId: "acme", keyId: record.id });
    await context.keys.getWithAccount(ref!);
    expect(timings.seen.map(([operation]) => operation)).toEqual(["lookup", "read_key"]);
    for (const [, seconds] of timings.seen) expect(seconds).toBeGreaterThanOrEqual(0);
    timings.stop();
  });
});
