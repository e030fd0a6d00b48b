// The clock-free measure of "at once": settled before the event loop's next turn, or not.

import { describe, expect, it } from "vitest";
import { settlesAtOnce } from "./at-once.js";

describe("settlesAtOnce", () => {
  it("holds for a promise settled now or after a few microtasks, either way", async () => {
    expect(await settlesAtOnce(Promise.resolve(1))).toBe(true);
    expect(await settlesAtOnce(Promise.reject(new Error("no")))).toBe(true);
    expect(await settlesAtOnce(Promise.resolve().then(() => Promise.resolve(2)))).toBe(true);
  });

  it("fails for a promise that waits for a timer or an event", async () => {
    // Not a 0 ms timer: Node runs one before or after setImmediate depending on whether a millisecond has
    // passed when the loop reaches its timers (it had, once, on a loaded machine). A second cannot have.
    expect(await settlesAtOnce(new Promise((resolve) => setTimeout(resolve, 1000).unref()))).toBe(false);
    expect(await settlesAtOnce(new Promise(() => {}))).toBe(false);
  });
});
