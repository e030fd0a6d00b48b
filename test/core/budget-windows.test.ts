// The two rules every view of a window reads spending by: a window's current period has spent nothing once a
// boundary of the billing time zone has passed since it was last charged, and what remains is never below 0.

import { describe, expect, it } from "vitest";
import { currentWindowSpent, remainingBudget } from "../../src/core/budget-windows.js";
import { PeriodCalendar } from "../../src/core/periods.js";

describe("currentWindowSpent", () => {
  it("is what Redis holds within the period, and zero once a boundary of the billing time zone has passed", () => {
    const moscow = new PeriodCalendar("Europe/Moscow");
    const utc = new PeriodCalendar("UTC");
    // November began at 2026-10-31T21:00Z in Moscow.
    const window = { spent: 4_000_000, periodStart: Date.parse("2026-10-31T21:00:00Z") };
    const monthStart = (calendar: PeriodCalendar, at: string) => calendar.at(Date.parse(at)).month.start;
    expect(currentWindowSpent(window, monthStart(moscow, "2026-11-30T20:59:59Z"))).toBe(4_000_000);
    expect(currentWindowSpent(window, monthStart(moscow, "2026-11-30T21:00:00Z"))).toBe(0);
    // The same instant is still November in UTC, where the window's period began later.
    const utcWindow = { ...window, periodStart: Date.parse("2026-11-01T00:00:00Z") };
    expect(currentWindowSpent(utcWindow, monthStart(utc, "2026-11-30T21:00:00Z"))).toBe(4_000_000);
  });
});

describe("remainingBudget", () => {
  it("is the budget less what was spent, and nothing, never less, once spending has passed it", () => {
    expect(remainingBudget(5_000_000, 1_250_001)).toBe(3_749_999);
    expect(remainingBudget(5_000_000, 5_000_000)).toBe(0);
    expect(remainingBudget(1_000_000, 1_500_000)).toBe(0);
    expect(remainingBudget(1_000_000, 0)).toBe(1_000_000);
  });
});
