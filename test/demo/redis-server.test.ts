// The throwaway redis-server of the demo, the benchmark and this suite: on a free loopback port, persisting
// nothing unless asked, its data directory removed when stopped (or kept to start again on it), and a
// clear message when redis-server is not installed.

import { existsSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { assertRedisServerInstalled, freePort, startRedisServer } from "../../src/demo/redis-server.js";
import { closeRedis, connectRedis, createRedis, type RedisClient } from "../../src/store/connection/redis.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function client(url: string): Promise<RedisClient> {
  const redis = createRedis({ url }, "cli");
  cleanups.push(() => closeRedis(redis));
  await connectRedis(redis, { url });
  return redis;
}

describe("startRedisServer", () => {
  it("starts a server on a loopback port that persists nothing, and removes its data when stopped", async () => {
    const server = await startRedisServer();
    cleanups.push(() => server.stop());
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    const redis = await client(server.url);
    expect(await redis.config("GET", "appendonly")).toEqual(["appendonly", "no"]);
    expect(await redis.config("GET", "save")).toEqual(["save", ""]);
    expect(await redis.config("GET", "bind")).toEqual(["bind", "127.0.0.1"]);
    expect(existsSync(server.dir)).toBe(true);
    await server.stop();
    expect(server.process.exitCode !== null || server.process.signalCode !== null).toBe(true);
    expect(existsSync(server.dir)).toBe(false);
    await server.stop();
  });

  it("starts again on the data and port of a server stopped with keepData", async () => {
    const first = await startRedisServer({ args: ["--appendonly", "yes"] });
    cleanups.push(() => first.stop());
    const redis = await client(first.url);
    await redis.set("kept", "yes");
    closeRedis(redis);
    await first.stop({ keepData: true });
    expect(existsSync(first.dir)).toBe(true);

    const second = await startRedisServer({
      port: first.port,
      dir: first.dir,
      args: ["--appendonly", "yes"],
    });
    cleanups.push(() => second.stop());
    expect(second.url).toBe(first.url);
    expect(await (await client(second.url)).get("kept")).toBe("yes");
  });

  it("fails rather than take another port when the port asked for is in use", async () => {
    const running = await startRedisServer();
    cleanups.push(() => running.stop());
    await expect(startRedisServer({ port: running.port })).rejects.toThrow("redis-server did not start");
  });
});

describe("freePort", () => {
  it("gives a loopback port nothing listens on", async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = await startRedisServer({ port });
    cleanups.push(() => server.stop());
    expect(server.port).toBe(port);
  });
});

describe("assertRedisServerInstalled", () => {
  it("passes when redis-server is on the PATH, and says how to install it when it is not", () => {
    expect(() => assertRedisServerInstalled()).not.toThrow();
    vi.stubEnv("PATH", "/nonexistent");
    expect(() => assertRedisServerInstalled()).toThrow(
      /^redis-server is not installed; .*`sudo apt-get install redis-server`.*`brew install redis`/,
    );
  });
});
