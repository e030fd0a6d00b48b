import { describe, expect, it } from "vitest";
import { dayStamp, PeriodCalendar, periodsAt } from "../../src/core/periods.js";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("periodsAt", () => {
  it("gives calendar day, ISO week (Monday) and month in UTC", () => {
    const p = periodsAt(at("2026-11-21T10:00:00Z"), "UTC"); // a Saturday
    expect(iso(p.day.start)).toBe("2026-11-21T00:00:00.000Z");
    expect(iso(p.day.end)).toBe("2026-11-22T00:00:00.000Z");
    expect(iso(p.week.start)).toBe("2026-11-16T00:00:00.000Z");
    expect(iso(p.week.end)).toBe("2026-11-23T00:00:00.000Z");
    expect(iso(p.month.start)).toBe("2026-11-01T00:00:00.000Z");
    expect(iso(p.month.end)).toBe("2026-12-01T00:00:00.000Z");
  });

  it("puts boundaries at local midnight in the billing time zone", () => {
    // 01:30 on 1 December in Moscow is still 30 November in UTC.
    const p = periodsAt(at("2026-11-30T22:30:00Z"), "Europe/Moscow");
    expect(iso(p.day.start)).toBe("2026-11-30T21:00:00.000Z");
    expect(iso(p.month.start)).toBe("2026-11-30T21:00:00.000Z");
    expect(iso(p.month.end)).toBe("2026-12-31T21:00:00.000Z");
  });

  it("treats the boundary instant as the start of the new period", () => {
    const p = periodsAt(at("2026-12-01T00:00:00Z"), "UTC");
    expect(iso(p.month.start)).toBe("2026-12-01T00:00:00.000Z");
    const before = periodsAt(at("2026-12-01T00:00:00Z") - 1, "UTC");
    expect(iso(before.month.end)).toBe("2026-12-01T00:00:00.000Z");
  });

  it("handles half-hour offsets", () => {
    const p = periodsAt(at("2026-11-21T20:00:00Z"), "Asia/Kolkata"); // 01:30 on the 22nd in India
    expect(iso(p.day.start)).toBe("2026-11-21T18:30:00.000Z");
  });

  it("has 23- and 25-hour days across daylight-saving changes", () => {
    const spring = periodsAt(at("2027-03-14T12:00:00Z"), "America/New_York");
    expect(spring.day.end - spring.day.start).toBe(23 * 3600_000);
    const autumn = periodsAt(at("2026-11-01T12:00:00Z"), "America/New_York");
    expect(autumn.day.end - autumn.day.start).toBe(25 * 3600_000);
    expect(iso(autumn.day.end)).toBe("2026-11-02T05:00:00.000Z");
  });

  it("refuses an unknown time zone", () => {
    expect(() => periodsAt(0, "Mars/Olympus")).toThrow(/unknown time zone/);
    expect(() => new PeriodCalendar("Nope/Nope")).toThrow(/unknown time zone/);
  });
});

describe("PeriodCalendar", () => {
  it("recomputes when the clock leaves the cached day, in either direction", () => {
    const calendar = new PeriodCalendar("Europe/Moscow");
    const first = calendar.at(at("2026-11-21T10:00:00Z"));
    expect(calendar.at(at("2026-11-21T20:59:59.999Z"))).toBe(first);
    expect(iso(calendar.at(at("2026-11-21T21:00:00Z")).day.start)).toBe("2026-11-21T21:00:00.000Z");
    expect(iso(calendar.at(at("2026-11-20T10:00:00Z")).day.start)).toBe("2026-11-19T21:00:00.000Z");
    expect(calendar.dayOf(at("2026-11-21T21:00:00Z"))).toBe("2026-11-22");
  });

  it("stamps days in the billing zone", () => {
    expect(dayStamp(at("2026-11-21T21:30:00Z"), "Europe/Moscow")).toBe("2026-11-22");
    expect(dayStamp(at("2026-11-21T21:30:00Z"), "UTC")).toBe("2026-11-21");
  });
});
