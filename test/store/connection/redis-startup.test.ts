// The gateway's Redis from start to serving: connected whenever Redis comes up, checked the first time the
// connection is ready, served once it passes; refused when it fails the checks at start; only reported when
// a later connection (a failover to a differently configured server) fails them. Against redis-servers of
// the test's own.

import { afterEach, describe, expect, it } from "vitest";
import { freePort, startRedisServer } from "../../../src/demo/redis-server.js";
import { closeRedis, createRedis, type RedisClient } from "../../../src/store/connection/redis.js";
import { type RedisStartup, startRedis } from "../../../src/store/connection/redis-startup.js";
import { captureLogs } from "../../helpers/logs.js";
import { temporaryDirectories } from "../../helpers/temp-dir.js";
import { waitUntil } from "../../helpers/wait.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const dataDir = temporaryDirectories("tunnel-startup-");

async function server(port: number, args: string[] = []) {
  const started = await startRedisServer({ port, dir: dataDir(), args });
  cleanups.push(() => started.stop());
  return started;
}

function start(port: number, allowNoPersistence = true) {
  const redis: RedisClient = createRedis({ url: `redis://127.0.0.1:${port}` }, "gateway");
  const logs = captureLogs();
  let served = 0;
  const startup: RedisStartup = startRedis(redis, {
    where: `redis://127.0.0.1:${port}`,
    logger: logs.logger,
    now: () => 0,
    checks: { allowNoPersistence },
    serve: () => served++,
  });
  cleanups.push(() => {
    startup.stop();
    closeRedis(redis);
  });
  return { redis, startup, logs, served: () => served };
}

/** Whether a promise has settled by the time everything already queued has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("startRedis", () => {
  it("serves once Redis has passed the checks, and says so", async () => {
    const port = await freePort();
    await server(port, ["--appendonly", "yes"]);
    const { startup, logs, served } = start(port, false);
    expect(startup.checked).toBe(false);
    await startup.serving;
    expect(startup.checked).toBe(true);
    expect(served()).toBe(1);
    expect(logs.messages()).toEqual([
      "Redis connected",
      "Redis checked: version, persistence and eviction policy are fit",
    ]);
    expect(await settled(startup.refused)).toBe(false);
  });

  it("waits for a Redis that is not up yet, and checks it once it is", async () => {
    const port = await freePort();
    const { startup, logs, served } = start(port);
    await waitUntil(
      () => logs.messages().includes("Redis is not reachable yet; retrying"),
      "a failed attempt",
    );
    expect(startup.checked).toBe(false);
    expect(served()).toBe(0);
    await server(port);
    await startup.serving;
    expect(served()).toBe(1);
    // A throwaway Redis allowed by redis.allowNoPersistence is accepted with a warning.
    expect(logs.lines).toContainEqual(
      expect.objectContaining({ level: 40, msg: expect.stringMatching(/allowNoPersistence is set/) }),
    );
  });

  it("refuses a Redis that fails the checks at start, with every reason and its fix, and never serves", async () => {
    const port = await freePort();
    await server(port, ["--maxmemory-policy", "allkeys-lru"]);
    const { startup, served } = start(port, false);
    const refusal = await startup.refused;
    expect(refusal).toMatchObject({ code: "service_unavailable" });
    expect(refusal.message).toMatch(/^refusing to run on this Redis: /);
    expect(refusal.message).toMatch(/persists nothing \(appendonly no, no RDB snapshots\)/);
    expect(refusal.message).toMatch(/; Redis at 127\.0\.0\.1:\d+ has maxmemory-policy allkeys-lru/);
    expect(startup.checked).toBe(false);
    expect(served()).toBe(0);
    expect(await settled(startup.serving)).toBe(false);
  });

  it("only reports a Redis that fails the checks after a reconnection, and runs on", async () => {
    const port = await freePort();
    await server(port);
    const { redis, startup, logs, served } = start(port);
    await startup.serving;
    // The server changes under the gateway, as a failover to a differently configured replica would.
    const admin = createRedis({ url: `redis://127.0.0.1:${port}` }, "cli");
    cleanups.push(() => closeRedis(admin));
    await admin.connect();
    await admin.config("SET", "maxmemory-policy", "volatile-lru");
    await admin.call("CLIENT", "KILL", "TYPE", "normal");
    await waitUntil(
      () => logs.messages().includes("Redis no longer passes the start-up checks"),
      "the failed check to be logged",
    );
    const line = logs.lines.find((l) => l.msg === "Redis no longer passes the start-up checks");
    expect(line).toMatchObject({ level: 50, err: expect.stringMatching(/maxmemory-policy volatile-lru/) });
    expect(startup.checked).toBe(true);
    expect(served()).toBe(1);
    expect(await settled(startup.refused)).toBe(false);
    expect(redis.status).toBe("ready");
  });
});
