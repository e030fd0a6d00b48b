import { describe, expect, it } from "vitest";
import { entryTime } from "../../src/store/request-log-store.js";

describe("entryTime", () => {
  it("gives exactly what toISOString gives, whether or not the second is the one of the previous call", () => {
    const start = Date.UTC(2026, 11, 31, 23, 59, 58, 990);
    // Steps of 1 ms across second, minute, day and year boundaries, then back in time and forward in jumps.
    const times = [
      ...Array.from({ length: 2100 }, (_, i) => start + i),
      start - 86_400_000,
      start,
      0,
      1,
      9,
      99,
      999,
      1000,
      Date.UTC(1999, 0, 1),
      253_402_300_799_999, // the last millisecond of year 9999
    ];
    for (const time of times) expect(entryTime(time)).toBe(new Date(time).toISOString());
  });

  it("drops a fractional millisecond, as Date does, and leaves years past 9999 to Date's own format", () => {
    expect(entryTime(1_700_000_000_123.9)).toBe("2023-11-14T22:13:20.123Z");
    expect(entryTime(253_402_300_800_000)).toBe("+010000-01-01T00:00:00.000Z");
  });
});
