// Timing of Redis operations: each operation is reported once with its duration, whether it succeeded or
// failed, and a store without an observer runs its work as it is.

import { describe, expect, it } from "vitest";
import { timed } from "../../../src/store/connection/timing.js";

describe("timed", () => {
  it("reports a successful operation once, by name, with its duration in seconds, and returns its result", async () => {
    const seen: [string, number][] = [];
    const result = await timed(
      (operation, seconds) => seen.push([operation, seconds]),
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
  });

  it("reports a failed operation too, and lets its error through unchanged", async () => {
    const seen: string[] = [];
    const failure = new Error("NOSCRIPT");
    await expect(
      timed(
        (operation) => seen.push(operation),
        "settle",
        () => Promise.reject(failure),
      ),
    ).rejects.toBe(failure);
    expect(seen).toEqual(["settle"]);
  });

  it("runs the work as it is without an observer", async () => {
    const work = Promise.resolve(42);
    expect(await timed(undefined, "lookup", () => work)).toBe(42);
  });
});
