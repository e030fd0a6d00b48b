// The measured rate requests leave for the model server at, from which Retry-After is worked out: over the
// last ten seconds, the gaps between places given until ten seconds have passed, nothing to promise before.

import { describe, expect, it } from "vitest";
import { DRAIN_WINDOW_MS, DrainRate } from "../../../src/proxy/sharing/drain-rate.js";

describe("DrainRate", () => {
  it("has no rate before two places were given, and measures the gaps between them until the window is full", () => {
    const rate = new DrainRate();
    expect(rate.perSecond(0)).toBeNull();
    rate.record(1000);
    expect(rate.perSecond(1000)).toBeNull();
    for (let at = 1500; at <= 5000; at += 500) rate.record(at);
    expect(rate.perSecond(5000)).toBe(2);
  });

  it("counts a burst measured over less than a second as measured over one", () => {
    const rate = new DrainRate();
    for (let i = 0; i < 11; i++) rate.record(100 + i);
    expect(rate.perSecond(200)).toBe(10);
  });

  it("counts only the last ten seconds once they have passed, and none at all after ten quiet seconds", () => {
    const rate = new DrainRate();
    for (let at = 0; at < 20_000; at += 100) rate.record(at);
    expect(rate.perSecond(20_000)).toBeCloseTo(10, 0);
    for (let at = 20_000; at < 30_000; at += 1000) rate.record(at);
    expect(rate.perSecond(30_000)).toBeCloseTo(1, 0);
    expect(rate.perSecond(30_000 + DRAIN_WINDOW_MS)).toBe(0);
  });
});
