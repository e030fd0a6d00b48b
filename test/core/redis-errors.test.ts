// Which failures the gateway retries: only a Redis that is away or not answering (and the replies that mean
// "not now"), never a refusal or a bug of ours. The errors are the real ones ioredis produces.

import { ReplyError } from "ioredis";
import { describe, expect, inject, it } from "vitest";
import { isConnectionError, isRedisError } from "../../src/core/redis-errors.js";
import { freePort, startRedisServer } from "../../src/demo/redis-server.js";
import { closeRedis, connectRedis, createRedis } from "../../src/store/connection/redis.js";
import { runScript } from "../../src/store/scripts.js";

async function failureOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the command to fail, but it succeeded");
}

describe("isConnectionError", () => {
  it("is true for a command sent while the server is down, and on a closed connection", async () => {
    const server = await startRedisServer();
    const redis = createRedis({ url: server.url }, "gateway");
    try {
      await connectRedis(redis, { url: server.url });
      await server.stop();
      const whileAway = await failureOf(redis.get("k"));
      expect(isConnectionError(whileAway), whileAway.message).toBe(true);
      expect(isRedisError(whileAway)).toBe(true);
    } finally {
      closeRedis(redis);
      await server.stop();
    }

    const url = inject("redisUrl");
    const quitting = createRedis({ url }, "gateway");
    await connectRedis(quitting, { url });
    await quitting.quit();
    const closed = await failureOf(quitting.get("k"));
    expect(closed.message).toBe("Connection is closed.");
    expect(isConnectionError(closed)).toBe(true);
  });

  it("is true for a refused connection and for a command that times out", async () => {
    const port = await freePort();
    const cli = createRedis({ url: `redis://127.0.0.1:${port}` }, "cli");
    const events: Error[] = [];
    cli.on("error", (error: Error) => events.push(error));
    await failureOf(cli.connect());
    closeRedis(cli);
    expect(events.map((e) => (e as NodeJS.ErrnoException).code)).toContain("ECONNREFUSED");
    expect(events.every((e) => isConnectionError(e))).toBe(true);

    const url = inject("redisUrl");
    const slow = createRedis({ url, commandTimeoutMs: 50 }, "gateway");
    try {
      await connectRedis(slow, { url });
      // BLPOP on a list nobody fills holds the answer for a second: longer than the command timeout.
      const timedOut = await failureOf(slow.blpop(`test:nothing:${port}`, 1));
      expect(timedOut.message).toBe("Command timed out");
      expect(isConnectionError(timedOut)).toBe(true);
    } finally {
      closeRedis(slow);
    }
  });

  it("is true for replies that mean 'not now', false for a refusal", async () => {
    expect(isConnectionError(new ReplyError("LOADING Redis is loading the dataset in memory"))).toBe(true);
    expect(isConnectionError(new ReplyError("READONLY You can't write against a read only replica."))).toBe(
      true,
    );
    const url = inject("redisUrl");
    const redis = createRedis({ url }, "gateway");
    try {
      await connectRedis(redis, { url });
      const key = `test:wrongtype:${Date.now()}`;
      await redis.set(key, "a string");
      const refused = await failureOf(redis.hget(key, "field"));
      expect(refused.message).toMatch(/^WRONGTYPE/);
      expect(isConnectionError(refused)).toBe(false);
      expect(isRedisError(refused)).toBe(true);
      await redis.del(key);
    } finally {
      closeRedis(redis);
    }
  });

  it("is false for bugs of ours, which retrying cannot fix", async () => {
    const url = inject("redisUrl");
    const redis = createRedis({ url }, "gateway");
    try {
      await connectRedis(redis, { url });
      const wrongKeyCount = await failureOf(runScript(redis, "reserve", ["only one key"], []));
      expect(wrongKeyCount.message).toMatch(/takes 5 keys, got 1/);
      expect(isConnectionError(wrongKeyCount)).toBe(false);
      expect(isRedisError(wrongKeyCount)).toBe(false);
    } finally {
      closeRedis(redis);
    }
    const typeError = await failureOf(Promise.resolve().then(() => (undefined as unknown as string).length));
    expect(typeError).toBeInstanceOf(TypeError);
    expect(isConnectionError(typeError)).toBe(false);
    expect(isConnectionError("Connection is closed.")).toBe(false);
  });
});
