// Usage per day, of one key or of a whole account (the sum over its keys, revoked ones included: what they
// spent was spent). Counters are integers and cost is in micro-rubles, so sums are exact; the views turn
// them into rubles only at the end. Used by the CLI's `usage` and the admin API alike.

import { GatewayError } from "../core/errors.js";
import { dayStamp } from "../core/periods.js";
import { validateAccountId, validateKeyId } from "../core/validate.js";
import type { Stores } from "../store/stores.js";
import type { UsageCounters } from "../store/usage/usage-store.js";

/** Longest range of days one call returns. */
export const MAX_USAGE_DAYS = 366;
/** Days returned when no range is given: the last 30, today included. */
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface UsageDay {
  /** YYYY-MM-DD in the billing time zone. */
  date: string;
  counters: UsageCounters;
}

export interface UsageQuery {
  accountId: unknown;
  /** One key of the account; all of its keys when omitted. */
  keyId?: unknown;
  /** First day, YYYY-MM-DD; 29 days before `to` when omitted. */
  from?: unknown;
  /** Last day, YYYY-MM-DD; today (billing time zone) when omitted. */
  to?: unknown;
}

/** The stores UsageService reads and writes. */
export type UsageStores = Pick<Stores, "accounts" | "keys" | "usage" | "calendar" | "now">;

export class UsageService {
  constructor(private readonly stores: UsageStores) {}

  /** The account's usage per day (or one of its keys'), oldest day first, every day of the range present. */
  async daily(query: UsageQuery): Promise<UsageDay[]> {
    const accountId = validateAccountId(query.accountId);
    const keyId = query.keyId === undefined ? undefined : validateKeyId(query.keyId);
    const days = this.days(query.from, query.to);
    await this.stores.accounts.require(accountId);
    let keyIds: string[];
    if (keyId === undefined) {
      keyIds = (await this.stores.keys.list(accountId)).map((key) => key.id);
    } else {
      const key = await this.stores.keys.findById(keyId);
      if (key?.accountId !== accountId) {
        throw new GatewayError("key_not_found", `account ${accountId} has no key with id ${keyId}`);
      }
      keyIds = [keyId];
    }
    const counters = await this.stores.usage.counters(accountId, keyIds, days);
    return days.map((date, d) => ({ date, counters: sumCounters(counters[d] ?? []) }));
  }

  /**
   * The days from `from` to `to` (YYYY-MM-DD, inclusive), checked before anything is read: the last 30 days
   * up to today in the billing time zone when they are omitted; at most `maxDays` of them.
   */
  days(from?: unknown, to?: unknown, maxDays = MAX_USAGE_DAYS): string[] {
    const last =
      to === undefined ? dayStamp(this.stores.now(), this.stores.calendar.zone) : dateInput(to, "to");
    const first = from === undefined ? shiftDay(last, 1 - DEFAULT_DAYS) : dateInput(from, "from");
    if (first > last)
      throw new GatewayError("invalid_request", `from (${first}) must not be after to (${last})`);
    const days: string[] = [];
    for (let day = first; day <= last; day = shiftDay(day, 1)) {
      days.push(day);
      if (days.length > maxDays) {
        throw new GatewayError(
          "invalid_request",
          `from and to may span at most ${maxDays} days; got ${first} to ${last}`,
        );
      }
    }
    return days;
  }
}

/** Field-by-field sum of counters (days of several keys, or several days). */
export function sumCounters(all: readonly UsageCounters[]): UsageCounters {
  const sum: Record<string, number> = {};
  for (const counters of all) {
    for (const [field, value] of Object.entries(counters)) sum[field] = (sum[field] ?? 0) + value;
  }
  return sum;
}

function dateInput(value: unknown, what: string): string {
  if (typeof value !== "string" || !DATE.test(value) || shiftDay(value, 0) !== value) {
    throw new GatewayError(
      "invalid_request",
      `${what} must be a date as YYYY-MM-DD; got ${JSON.stringify(value) ?? String(value)}`,
    );
  }
  return value;
}

/** The calendar date `days` after `day` (both YYYY-MM-DD). */
function shiftDay(day: string, days: number): string {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(ms) ? "" : new Date(ms + days * DAY_MS).toISOString().slice(0, 10);
}
