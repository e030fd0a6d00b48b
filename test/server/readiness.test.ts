// /readyz's verdict: not while draining, not before Redis is connected and checked, not while Redis does
// not answer a PING within a second. On the suite's Redis, and on one of the test's own that stops
// answering (SIGSTOP).

import { afterEach, describe, expect, inject, it } from "vitest";
import { startRedisServer } from "../../src/demo/redis-server.js";
import { readinessOf } from "../../src/server/readiness.js";
import { closeRedis, connectRedis, createRedis, type RedisClient } from "../../src/store/connection/redis.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connected(url = inject("redisUrl")): Promise<RedisClient> {
  const redis = createRedis({ url }, "gateway");
  cleanups.push(() => closeRedis(redis));
  await connectRedis(redis, { url });
  return redis;
}

const SHUTTING_DOWN = { ready: false, reason: "shutting down" };
const UNAVAILABLE = { ready: false, reason: "redis unavailable" };

describe("readinessOf", () => {
  it("is ready while Redis is connected, checked and answering", async () => {
    const ready = readinessOf(await connected(), { draining: () => false, checked: () => true });
    expect(await ready()).toEqual({ ready: true });
  });

  it("says it is shutting down while draining, whatever Redis does", async () => {
    const redis = await connected();
    expect(await readinessOf(redis, { draining: () => true, checked: () => true })()).toEqual(SHUTTING_DOWN);
    closeRedis(redis);
    expect(await readinessOf(redis, { draining: () => true, checked: () => false })()).toEqual(SHUTTING_DOWN);
  });

  it("says Redis is unavailable before its checks passed, or while its connection is not ready", async () => {
    const redis = await connected();
    let checked = false;
    const ready = readinessOf(redis, { draining: () => false, checked: () => checked });
    expect(await ready()).toEqual(UNAVAILABLE);
    checked = true;
    expect(await ready()).toEqual({ ready: true });
    closeRedis(redis);
    expect(await ready()).toEqual(UNAVAILABLE);
  });

  it("says Redis is unavailable when it does not answer a PING within a second", async () => {
    const server = await startRedisServer();
    cleanups.push(() => server.stop());
    const redis = await connected(server.url);
    const ready = readinessOf(redis, { draining: () => false, checked: () => true });
    expect(await ready()).toEqual({ ready: true });
    server.process.kill("SIGSTOP");
    cleanups.push(() => void server.process.kill("SIGCONT"));
    const started = Date.now();
    expect(await ready()).toEqual(UNAVAILABLE);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });
});
