// The JSON shapes of accounts and keys that clients, the CLI and the admin API see. Amounts are rubles as
// JSON numbers (exact to the micro-ruble), times ISO-8601 UTC.

import { type Micros, rublesForJson } from "../billing/money.js";
import type { PeriodCalendar } from "../billing/periods.js";
import type { AccountRecord, KeyRecord } from "../store/records.js";

export const CURRENCY = "RUB";

export interface BudgetView {
  period: string;
  initial: number;
  spent: number;
  remaining: number;
  reset_at: string;
}

export interface KeyView {
  id: string;
  name: string;
  account_id: string;
  created_at: string;
  expires_at: string | null;
  allowed_models: string[] | null;
  log_bodies: boolean;
  budget: BudgetView | null;
  currency: typeof CURRENCY;
}

export interface AccountView {
  id: string;
  name: string;
  balance: number;
  currency: typeof CURRENCY;
  created_at: string;
}

/**
 * The spent amount of the key's current period: zero when a period boundary has passed since the key was
 * last charged, even though Redis still holds the old figure until the next request rolls it over.
 */
export function currentSpent(key: KeyRecord, now: number, calendar: PeriodCalendar): Micros {
  return calendar.at(now)[key.period].start > key.periodStart ? 0 : key.spent;
}

export function budgetView(key: KeyRecord, now: number, calendar: PeriodCalendar): BudgetView | null {
  if (key.budget === null) return null;
  const spent = currentSpent(key, now, calendar);
  return {
    period: key.period,
    initial: rublesForJson(key.budget),
    spent: rublesForJson(spent),
    remaining: rublesForJson(Math.max(0, key.budget - spent)),
    reset_at: iso(calendar.at(now)[key.period].end),
  };
}

export function keyView(key: KeyRecord, now: number, calendar: PeriodCalendar): KeyView {
  return {
    id: key.id,
    name: key.name,
    account_id: key.accountId,
    created_at: iso(key.createdAt),
    expires_at: key.expiresAt === null ? null : iso(key.expiresAt),
    allowed_models: key.allowedModels,
    log_bodies: key.logBodies,
    budget: budgetView(key, now, calendar),
    currency: CURRENCY,
  };
}

/** A key as listed to its owner or an operator: the client view plus its revocation time. */
export function keyListView(key: KeyRecord, now: number, calendar: PeriodCalendar) {
  return { ...keyView(key, now, calendar), revoked_at: key.revokedAt === null ? null : iso(key.revokedAt) };
}

export function accountView(account: AccountRecord): AccountView {
  return {
    id: account.id,
    name: account.name,
    balance: rublesForJson(account.balance),
    currency: CURRENCY,
    created_at: iso(account.createdAt),
  };
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
