// What the gateway says about its Redis connection, once per change and with the cause ioredis reports:
// not reachable yet, connected, lost, not reachable, reachable again after how long (the injected clock).
// Against redis-servers of the test's own, stopped and restarted on their port.

import { afterEach, describe, expect, it } from "vitest";
import { freePort, type RedisServer, startRedisServer } from "../../../src/demo/redis-server.js";
import { closeRedis, createRedis, type RedisClient } from "../../../src/store/connection/redis.js";
import { watchRedis } from "../../../src/store/connection/redis-watch.js";
import { TestClock } from "../../helpers/clock.js";
import { captureLogs } from "../../helpers/logs.js";
import { temporaryDirectories } from "../../helpers/temp-dir.js";
import { waitUntil } from "../../helpers/wait.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const dataDir = temporaryDirectories("tunnel-watch-");

async function serverOn(port: number): Promise<RedisServer> {
  const server = await startRedisServer({ port, dir: dataDir() });
  cleanups.push(() => server.stop());
  return server;
}

function gatewayClient(port: number): RedisClient {
  const redis = createRedis({ url: `redis://127.0.0.1:${port}` }, "gateway");
  cleanups.push(() => closeRedis(redis));
  return redis;
}

describe("watchRedis", () => {
  it("says Redis is not reachable yet once per cause while retrying, then that it is connected", async () => {
    const port = await freePort();
    const redis = gatewayClient(port);
    const { logger, lines, messages } = captureLogs();
    let ready = 0;
    const watch = watchRedis(redis, { where: "test-redis", logger, now: () => 0, ready: () => ready++ });
    cleanups.push(() => watch.stop());
    redis.connect().catch(() => {});
    // Several reconnection attempts fail with the same cause.
    await waitUntil(() => lines.length > 0, "the first failure");
    await new Promise((resolve) => redis.once("reconnecting", resolve));
    await new Promise((resolve) => redis.once("reconnecting", resolve));
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: "Redis is not reachable yet; retrying",
        redis: "test-redis",
        err: `connect ECONNREFUSED 127.0.0.1:${port}`,
      }),
    ]);

    await serverOn(port);
    await waitUntil(() => ready === 1, "the connection to be ready");
    expect(messages()).toEqual(["Redis is not reachable yet; retrying", "Redis connected"]);
  });

  it("says a connection was lost and is reachable again, with how long it was away", async () => {
    const port = await freePort();
    const dir = dataDir();
    let server = await startRedisServer({ port, dir });
    cleanups.push(() => server.stop());
    const redis = gatewayClient(port);
    const clock = new TestClock();
    const { logger, lines, messages } = captureLogs();
    let ready = 0;
    const watch = watchRedis(redis, { where: "test-redis", logger, now: clock.now, ready: () => ready++ });
    cleanups.push(() => watch.stop());
    await redis.connect();
    expect(ready).toBe(1);
    expect(messages()).toEqual(["Redis connected"]);

    await server.stop({ keepData: true });
    await waitUntil(
      () => messages().includes("Redis is not reachable; reconnecting"),
      "the reconnection failure",
    );
    clock.advance(4_321);
    server = await startRedisServer({ port, dir });
    await waitUntil(() => ready === 2, "the connection to be ready again");

    expect(messages()).toEqual([
      "Redis connected",
      "Redis connection lost; reconnecting",
      "Redis is not reachable; reconnecting",
      "Redis reachable again",
    ]);
    expect(lines[1]).toMatchObject({ level: 40, redis: "test-redis" });
    expect(lines[2]).toMatchObject({ err: `connect ECONNREFUSED 127.0.0.1:${port}` });
    expect(lines[3]).toMatchObject({ level: 30, down_ms: 4_321 });
  });

  it("stops listening when stopped", async () => {
    const port = await freePort();
    const server = await serverOn(port);
    const redis = gatewayClient(port);
    const { logger, lines } = captureLogs();
    let ready = 0;
    const watch = watchRedis(redis, { where: "test-redis", logger, now: () => 0, ready: () => ready++ });
    await redis.connect();
    watch.stop();
    await server.stop();
    await new Promise((resolve) => redis.once("reconnecting", resolve));
    expect(lines.map((line) => line.msg)).toEqual(["Redis connected"]);
    expect(ready).toBe(1);
  });
});
