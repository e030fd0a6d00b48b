// The operator's bank statement: the charges the request log tells of (logged-charges.ts) against what Redis
// holds, per key and day (the daily usage counters), per key and budget window and per account and budget
// window in their current periods, and per account and month — every difference in µ₽ (docs/billing.md#the-
// books-check). The log is taken to hold every request of the days it spans, from its first line's day on,
// and to run up to now: a period that began before that day cannot be told from the log and is not compared.

import { currentWindowSpent, type StoredWindow } from "../core/budget-windows.js";
import type { Micros } from "../core/money.js";
import type { Period } from "../core/periods.js";
import type { Stores } from "../store/stores.js";
import type { LoggedCharge } from "./logged-charges.js";

/** One figure the log and Redis disagree on. */
export interface BooksDifference {
  accountId: string;
  /** The key's id, or null for a figure of the whole account. */
  keyId: string | null;
  /** A calendar day (YYYY-MM-DD), a budget window's current period, or a calendar month (YYYY-MM). */
  figure: { day: string } | { window: Period; from: string } | { month: string };
  log: Micros;
  redis: Micros;
  /** Redis less the log: negative when Redis holds less than the log says was charged. */
  difference: Micros;
}

export interface BooksStatement {
  /** How many figures were compared, of each kind. */
  compared: { accounts: number; keys: number; days: number; windows: number; months: number };
  differences: BooksDifference[];
  /** Figures that could not be compared, and why. */
  notCompared: string[];
}

type BooksStores = Pick<Stores, "keys" | "accounts" | "usage" | "calendar" | "now">;

/** A window's current period as the statement names it. */
interface Span {
  start: number;
  end: number;
}

export class BooksCheck {
  private readonly charges: LoggedCharge[] = [];

  constructor(private readonly stores: BooksStores) {}

  add(charge: LoggedCharge): void {
    this.charges.push(charge);
  }

  async compare(): Promise<BooksStatement> {
    const statement: BooksStatement = {
      compared: { accounts: 0, keys: 0, days: 0, windows: 0, months: 0 },
      differences: [],
      notCompared: [],
    };
    if (this.charges.length === 0) return statement;
    const { calendar } = this.stores;
    const now = this.stores.now();
    let first = Number.POSITIVE_INFINITY;
    let last = 0;
    for (const { at } of this.charges) {
      first = Math.min(first, at);
      last = Math.max(last, at);
    }
    const from = calendar.at(first).day.start;
    const days = daysBetween(from, last, calendar);
    const current = calendar.at(now);
    const byAccount = groupBy(this.charges, (charge) => charge.accountId);
    statement.compared.days = days.length;
    for (const [accountId, charges] of byAccount) {
      statement.compared.accounts++;
      const differ = (
        keyId: string | null,
        figure: BooksDifference["figure"],
        log: Micros,
        redis: Micros,
      ) => {
        if (log !== redis)
          statement.differences.push({ accountId, keyId, figure, log, redis, difference: redis - log });
      };
      const keys = await this.stores.keys.list(accountId);
      const keyIds = [...new Set([...keys.map((key) => key.id), ...charges.map((charge) => charge.keyId)])];
      statement.compared.keys += keyIds.length;
      const counters = await this.stores.usage.counters(accountId, keyIds, days);
      for (const [d, day] of days.entries()) {
        for (const [k, keyId] of keyIds.entries()) {
          const log = sum(charges, (c) => c.keyId === keyId && calendar.dayOf(c.at) === day);
          differ(keyId, { day }, log, counters[d]?.[k]?.cost ?? 0);
        }
      }
      for (const key of keys) {
        const windows: StoredWindow[] =
          key.budgets.length > 0
            ? key.budgets
            : [{ period: key.period, budget: 0, spent: key.spent, periodStart: key.periodStart }];
        for (const window of windows) {
          const span = current[window.period];
          if (!this.covers(span, from, statement, `key ${key.id}`, window.period)) continue;
          statement.compared.windows++;
          const log = sum(charges, (c) => c.keyId === key.id && within(c.at, span));
          differ(key.id, windowFigure(window.period, span), log, currentWindowSpent(window, span.start));
        }
      }
      const account = await this.stores.accounts.get(accountId);
      for (const window of account?.budgets ?? []) {
        const span = current[window.period];
        if (!this.covers(span, from, statement, `account ${accountId}`, window.period)) continue;
        statement.compared.windows++;
        const log = sum(charges, (c) => within(c.at, span));
        differ(null, windowFigure(window.period, span), log, currentWindowSpent(window, span.start));
      }
      for (const month of monthsBetween(from, last, calendar)) {
        statement.compared.months++;
        const [counters] = await this.stores.usage.months([accountId], month.name);
        differ(
          null,
          { month: month.name },
          sum(charges, (c) => within(c.at, month)),
          counters?.cost ?? 0,
        );
      }
    }
    return statement;
  }

  /** Whether the log spans the whole of a current period (it starts on or after the log's first day). */
  private covers(
    span: Span,
    from: number,
    statement: BooksStatement,
    whose: string,
    period: Period,
  ): boolean {
    if (span.start >= from) return true;
    statement.notCompared.push(
      `the ${period} window of ${whose}: its period began ${new Date(span.start).toISOString()}, before the log's first day`,
    );
    return false;
  }
}

function windowFigure(period: Period, span: Span): BooksDifference["figure"] {
  return { window: period, from: new Date(span.start).toISOString() };
}

function within(at: number, span: Span): boolean {
  return at >= span.start && at < span.end;
}

function sum(charges: readonly LoggedCharge[], include: (charge: LoggedCharge) => boolean): Micros {
  let total = 0;
  for (const charge of charges) if (include(charge)) total += charge.cost;
  return total;
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}

/** The calendar days (YYYY-MM-DD) from the one starting at `from` to the one holding `last`. */
function daysBetween(from: number, last: number, calendar: BooksStores["calendar"]): string[] {
  const days: string[] = [];
  for (let at = from; at <= last; at = calendar.at(at).day.end) days.push(calendar.dayOf(at));
  return days;
}

/** The calendar months (YYYY-MM) whose start is on or after `from`, up to the one holding `last`. */
function monthsBetween(
  from: number,
  last: number,
  calendar: BooksStores["calendar"],
): { name: string; start: number; end: number }[] {
  const months: { name: string; start: number; end: number }[] = [];
  for (let at = from; at <= last; ) {
    const { start, end } = calendar.at(at).month;
    if (start >= from) months.push({ name: calendar.dayOf(start).slice(0, 7), start, end });
    at = end;
  }
  return months;
}
