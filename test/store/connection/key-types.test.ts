// Keys of the wrong type in a transaction's way, against a real Redis: refused before anything is written,
// and an EXEC whose command Redis refused at run time reported instead of passing for success.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../../src/demo/redis-server.js";
import { execOrThrow, requireKeyTypes } from "../../../src/store/connection/key-types.js";
import {
  closeRedis,
  connectRedis,
  createRedis,
  type RedisClient,
} from "../../../src/store/connection/redis.js";

let server: RedisServer;
let redis: RedisClient;

beforeAll(async () => {
  server = await startRedisServer();
  redis = createRedis({ url: server.url }, "gateway");
  await connectRedis(redis, { url: server.url });
});

afterAll(async () => {
  await closeRedis(redis);
  await server.stop();
});

describe("requireKeyTypes", () => {
  it("passes keys that are missing or of the expected type", async () => {
    await redis.hset("kt:hash", "a", "1");
    await expect(requireKeyTypes(redis, { "kt:hash": "hash", "kt:none": "list" })).resolves.toBeUndefined();
  });

  it("refuses a key of another type, naming the key and both types, as Redis' own refusal", async () => {
    await redis.set("kt:string", "x");
    const refused = requireKeyTypes(redis, { "kt:string": "list" });
    await expect(refused).rejects.toThrow(/WRONGTYPE kt:string holds a string where a list belongs/);
    await expect(refused).rejects.toMatchObject({ name: "ReplyError" });
  });
});

describe("execOrThrow", () => {
  it("throws the error of a command Redis refused inside EXEC, after the others ran", async () => {
    await redis.set("kt:audit", "in the way");
    const multi = redis.multi().hset("kt:record", "f", "v").lpush("kt:audit", "entry");
    await expect(execOrThrow(multi)).rejects.toThrow(/WRONGTYPE/);
    // Why the types are checked before: EXEC ran the first command anyway.
    expect(await redis.hget("kt:record", "f")).toBe("v");
  });

  it("returns when every command succeeded", async () => {
    await expect(execOrThrow(redis.multi().set("kt:ok", "1").incr("kt:count"))).resolves.toBeUndefined();
    expect(await redis.get("kt:count")).toBe("1");
  });
});
