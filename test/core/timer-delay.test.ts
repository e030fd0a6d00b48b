// Delays derived from settings stay within what Node's timers honour (above 2^31 - 1 ms they fire after 1 ms).

import { describe, expect, it } from "vitest";
import { MAX_TIMER_MS, timerDelay } from "../../src/core/timer-delay.js";

describe("timerDelay", () => {
  it("caps a delay at 2^31 - 1 ms, raises it to the least given, and makes it whole", () => {
    expect(MAX_TIMER_MS).toBe(2_147_483_647);
    expect(timerDelay(5 * 365 * 86_400_000)).toBe(MAX_TIMER_MS);
    expect(timerDelay(Number.POSITIVE_INFINITY, 1000)).toBe(MAX_TIMER_MS);
    expect(timerDelay(MAX_TIMER_MS + 1)).toBe(MAX_TIMER_MS);
    expect(timerDelay(20_000.7, 1000)).toBe(20_000);
    expect(timerDelay(10, 1000)).toBe(1000);
    expect(timerDelay(-5)).toBe(0);
    expect(timerDelay(Number.NaN, 1000)).toBe(1000);
  });
});
