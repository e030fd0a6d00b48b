// Connections to Redis: the database a URL names is the one every command uses, and a connection that
// fails says where and why without a password.

import { describe, expect, inject, it } from "vitest";
import { GatewayError } from "../../../src/core/errors.js";
import { freePort } from "../../../src/demo/redis-server.js";
import {
  closeRedis,
  connectRedis,
  createRedis,
  describeRedis,
  redactUrl,
} from "../../../src/store/connection/redis.js";

describe("a database number in redis.url", () => {
  it("is the database every command of the connection uses", async () => {
    const url = inject("redisUrl");
    const key = `test:db:${Date.now()}`;
    const inFive = createRedis({ url: `${url}/5` }, "gateway");
    const inZero = createRedis({ url }, "gateway");
    try {
      await connectRedis(inFive, { url: `${url}/5` });
      await connectRedis(inZero, { url });
      await inFive.set(key, "five");
      expect(await inZero.get(key)).toBeNull();
      await inZero.select(5);
      expect(await inZero.get(key)).toBe("five");
      await inZero.del(key);
    } finally {
      closeRedis(inFive);
      closeRedis(inZero);
    }
  });
});

describe("connectRedis", () => {
  it("fails with service_unavailable naming the server, without its password, and the real cause", async () => {
    const port = await freePort();
    const settings = { url: `redis://user:hunter2@127.0.0.1:${port}` };
    const cli = createRedis(settings, "cli");
    try {
      const failure = await connectRedis(cli, settings).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(GatewayError);
      expect(failure).toMatchObject({ code: "service_unavailable" });
      const message = (failure as GatewayError).message;
      expect(message).toBe(
        `cannot connect to Redis at redis://user:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
      );
      expect(message).not.toContain("hunter2");
    } finally {
      closeRedis(cli);
    }
  });
});

describe("where Redis is, for messages", () => {
  it("hides a URL's password, and never repeats a URL it cannot parse", () => {
    expect(redactUrl("redis://:s3cret@redis.internal:6380/2")).toBe("redis://:***@redis.internal:6380/2");
    expect(redactUrl("redis://redis.internal:6379")).toBe("redis://redis.internal:6379");
    expect(redactUrl("not a url with s3cret")).toBe("(unparseable Redis URL)");
  });

  it("names a Cluster by its seed nodes and a Sentinel master by its name and sentinels", () => {
    expect(
      describeRedis({ url: "redis://ignored", cluster: { nodes: ["10.0.0.1:7000", "10.0.0.2:7000"] } }),
    ).toBe("cluster 10.0.0.1:7000,10.0.0.2:7000");
    expect(
      describeRedis({
        url: "redis://ignored",
        sentinel: { name: "mymaster", sentinels: ["s1:26379", "s2:26379"], password: "pw" },
      }),
    ).toBe("sentinel mymaster via s1:26379,s2:26379");
    expect(describeRedis({ url: "redis://:pw@h:1" })).toBe("redis://:***@h:1");
  });
});
