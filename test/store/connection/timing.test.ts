// Timing of Redis operations: each operation is published once on redis.operation with its duration, whether
// it succeeded or failed; a store without events, or events nobody listens to, runs its work as it is.

import { describe, expect, it } from "vitest";
import { GatewayEvents } from "../../../src/core/channels.js";
import { timed } from "../../../src/store/connection/timing.js";
import { redisTimings } from "../../helpers/channels.js";

describe("timed", () => {
  it("reports a successful operation once, by name, with its duration in seconds, and returns its result", async () => {
    const { events, seen, stop } = redisTimings();
    const result = await timed(
      events,
      "reserve",
      () => new Promise<string>((resolve) => setImmediate(() => resolve("done"))),
    );
    expect(result).toBe("done");
    expect(seen).toHaveLength(1);
    const [operation, seconds] = seen[0]!;
    expect(operation).toBe("reserve");
    expect(seconds).toBeGreaterThan(0);
    // Seconds, not milliseconds: one turn of the event loop takes far less than a second.
    expect(seconds).toBeLessThan(1);
    stop();
  });

  it("reports a failed operation too, and lets its error through unchanged", async () => {
    const { events, seen, stop } = redisTimings();
    const failure = new Error("NOSCRIPT");
    await expect(timed(events, "settle", () => Promise.reject(failure))).rejects.toBe(failure);
    expect(seen.map(([operation]) => operation)).toEqual(["settle"]);
    stop();
  });

  it("publishes only to its own gateway's subscribers, and takes no time while nobody listens", async () => {
    const { events, seen, stop } = redisTimings();
    const other = new GatewayEvents();
    expect(other.listening("redis.operation")).toBe(true);
    expect(await timed(other, "lookup", () => Promise.resolve(1))).toBe(1);
    expect(seen).toEqual([]);
    stop();
    expect(events.listening("redis.operation")).toBe(false);
    expect(await timed(events, "lookup", () => Promise.resolve(2))).toBe(2);
    expect(seen).toEqual([]);
  });

  it("runs the work as it is without an observer", async () => {
    const work = Promise.resolve(42);
    expect(await timed(undefined, "lookup", () => work)).toBe(42);
  });
});
