// The daily charts' x axis: the range has half a day of room around the days, and the labelled days count
// back from the last (today), as many as fit — one day alone still has its label.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dayRange, daySplits } from "../../../../../src/admin/ui/components/charts/day-axis.js";

const DAY = 86_400;
const NOV_21 = Date.parse("2026-11-21T00:00:00Z") / 1000;

describe("dayRange", () => {
  it("leaves half a day around the days, a single day included", () => {
    expect(dayRange(NOV_21, NOV_21)).toEqual([NOV_21 - DAY / 2, NOV_21 + DAY / 2]);
    expect(dayRange(NOV_21 - 29 * DAY, NOV_21)).toEqual([NOV_21 - 29.5 * DAY, NOV_21 + DAY / 2]);
  });
});

describe("daySplits", () => {
  it("labels a single day", () => {
    expect(daySplits(NOV_21, NOV_21, 300, 56)).toEqual([NOV_21]);
  });

  it("labels every day that fits, and otherwise every n-th counted back from the last", () => {
    expect(daySplits(NOV_21 - 2 * DAY, NOV_21, 600, 56)).toEqual([NOV_21 - 2 * DAY, NOV_21 - DAY, NOV_21]);
    // 30 days in 560 px: 10 labels fit, so every third day, ending on the last.
    const splits = daySplits(NOV_21 - 29 * DAY, NOV_21, 560, 56);
    expect(splits).toHaveLength(10);
    expect(splits.at(-1)).toBe(NOV_21);
    expect((splits[1] as number) - (splits[0] as number)).toBe(3 * DAY);
  });

  it("always labels the last day, never more labels than fit, and only days of the range", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 3000 }), (days, width) => {
        const first = NOV_21 - (days - 1) * DAY;
        const splits = daySplits(first, NOV_21, width, 56);
        expect(splits.at(-1)).toBe(NOV_21);
        expect(splits.length).toBeLessThanOrEqual(Math.max(1, Math.floor(width / 56)));
        for (const split of splits) {
          expect(split).toBeGreaterThanOrEqual(first);
          expect((NOV_21 - split) % DAY).toBe(0);
        }
      }),
    );
  });
});
