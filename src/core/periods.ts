// Calendar budget periods in the billing time zone: a day ends at midnight, a week on Monday 00:00, a month
// on the 1st at 00:00. The gateway computes the boundaries here and hands the start of the current period to
// the Lua scripts, which reset a key's spent amount when that start has moved past the one they stored. No
// background job is involved: whatever touches a key first after a boundary rolls it over.

import { DateTime } from "luxon";

export const PERIODS = ["day", "week", "month"] as const;
export type Period = (typeof PERIODS)[number];

export interface PeriodBounds {
  /** Inclusive start, epoch milliseconds. */
  start: number;
  /** Exclusive end (the reset instant), epoch milliseconds. */
  end: number;
}

export type CurrentPeriods = Record<Period, PeriodBounds>;

export function isPeriod(value: unknown): value is Period {
  return typeof value === "string" && (PERIODS as readonly string[]).includes(value);
}

export function isValidTimeZone(zone: string): boolean {
  return DateTime.now().setZone(zone).isValid;
}

/** The day, week and month that contain `now` in `zone`. */
export function periodsAt(now: number, zone: string): CurrentPeriods {
  const local = DateTime.fromMillis(now, { zone });
  if (!local.isValid) throw new RangeError(`unknown time zone ${JSON.stringify(zone)}`);
  const day = local.startOf("day");
  // Luxon's weeks are ISO weeks, which start on Monday.
  const week = local.startOf("week");
  const month = local.startOf("month");
  return {
    day: { start: day.toMillis(), end: day.plus({ days: 1 }).startOf("day").toMillis() },
    week: { start: week.toMillis(), end: week.plus({ weeks: 1 }).startOf("day").toMillis() },
    month: { start: month.toMillis(), end: month.plus({ months: 1 }).startOf("day").toMillis() },
  };
}

/** The calendar date of `now` in `zone` as YYYY-MM-DD, the bucket of the daily usage counters. */
export function dayStamp(now: number, zone: string): string {
  return DateTime.fromMillis(now, { zone }).toFormat("yyyy-LL-dd");
}

/**
 * Period boundaries for a clock that mostly moves forward: recomputed only when `now` leaves the cached day,
 * so the request path pays for a calendar computation once a day rather than on every request.
 */
export class PeriodCalendar {
  private cached: { periods: CurrentPeriods; day: string } | undefined;

  constructor(readonly zone: string) {
    if (!isValidTimeZone(zone)) throw new RangeError(`unknown time zone ${JSON.stringify(zone)}`);
  }

  at(now: number): CurrentPeriods {
    return this.entry(now).periods;
  }

  /** YYYY-MM-DD of `now` in the billing zone. */
  dayOf(now: number): string {
    return this.entry(now).day;
  }

  private entry(now: number): { periods: CurrentPeriods; day: string } {
    const cached = this.cached;
    if (cached && now >= cached.periods.day.start && now < cached.periods.day.end) return cached;
    const fresh = { periods: periodsAt(now, this.zone), day: dayStamp(now, this.zone) };
    this.cached = fresh;
    return fresh;
  }
}
