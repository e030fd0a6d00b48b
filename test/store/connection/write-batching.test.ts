// Scripts run in the same event-loop turn reach Redis in one write, in order, each with its own reply; a
// script run in a later turn is not held back past that turn. Observed on the real connection's socket.

import type { Socket } from "node:net";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { closeRedis, connectRedis, createRedis } from "../../../src/store/connection/redis.js";
import { runScript } from "../../../src/store/scripts.js";
import { testPrefix } from "../../helpers/store.js";

type Chunks = { chunk: unknown }[];
type Callback = (error?: Error | null) => void;
type Writes = Socket & {
  _write(chunk: unknown, encoding: BufferEncoding, callback: Callback): void;
  _writev(chunks: Chunks, callback: Callback): void;
};

/** The number of commands in each system-level write of the socket, as they happen. */
function recordWrites(socket: Socket): number[] {
  const writes: number[] = [];
  const target = socket as Writes;
  const write = target._write;
  const writev = target._writev;
  target._write = function (chunk, encoding, callback) {
    writes.push(1);
    write.call(this, chunk, encoding, callback);
  };
  target._writev = function (chunks, callback) {
    writes.push(chunks.length);
    writev.call(this, chunks, callback);
  };
  return writes;
}

describe("write batching on the Redis connection", () => {
  const url = inject("redisUrl");
  const redis = createRedis({ url }, "gateway") as Redis;
  const reservations = `${testPrefix()}reservations`;
  const extend = () => runScript<number>(redis, "extendReservations", [reservations], [Date.now(), "none"]);
  let writes: number[];

  beforeAll(async () => {
    await connectRedis(redis, { url });
    writes = recordWrites(redis.stream);
  });
  afterAll(() => closeRedis(redis));

  it("sends the commands of one turn in one write, their replies matched in order", async () => {
    writes.length = 0;
    const replies = await Promise.all([extend(), redis.echo("one"), extend(), redis.echo("two")]);
    expect(replies).toEqual([0, "one", 0, "two"]);
    expect(writes).toEqual([4]);
  });

  it("holds a command no longer than the turn it was issued in", async () => {
    writes.length = 0;
    const first = extend();
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([1]);
    const second = extend();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([1, 1]);
    expect(await Promise.all([first, second])).toEqual([0, 0]);
  });
});
