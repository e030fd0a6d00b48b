// The JSON shapes of accounts and keys that clients, the CLI and the admin API see. Amounts are rubles as
// JSON numbers (exact to the micro-ruble), times ISO-8601 UTC.

import type { z } from "zod";
import type { BudgetWindowView } from "../core/budget-window-schema.js";
import { budgetWindowView } from "../core/budget-window-view.js";
import { currentWindowSpent, type StoredWindow } from "../core/budget-windows.js";
import { rublesForJson } from "../core/money.js";
import type { PeriodCalendar } from "../core/periods.js";
import { LATENCY_BUCKETS_MS } from "../store/billing/settle-script.js";
import type { AccountRecord, KeyRecord } from "../store/records.js";
import type { UsageCounters } from "../store/usage/usage-store.js";
import type { AccountView } from "./account-schema.js";
import { CLIENT_KEY_FIELDS, fieldSerializer, LISTED_KEY_FIELDS } from "./key-fields.js";
import type { Budget, ClientKey, Key, KeyState, Limits, ListedKey } from "./key-schema.js";
import type { DailyUsage } from "./usage-schema.js";

export const CURRENCY = "RUB";

/** A key's first window as its deprecated `budget` shows it. */
export type BudgetView = z.output<typeof Budget>;
/** A key's limits as clients see them; null where the key has none. */
export type LimitsView = z.output<typeof Limits>;
/** A key as its own client sees it (GET /v1/key). */
export type KeyView = z.output<typeof ClientKey>;
/** A key as its owner and operators see it: the complete view, every audience's view is a part of it. */
export type KeyJson = z.output<typeof Key>;

/**
 * What a key can do now (one of KEY_STATES), the one answer every listing gives. A final state wins over a
 * passing one: revoked over expired (a revoked key stays revoked whatever its expiry), expired over disabled,
 * and any of them over rotating (a key whose previous value still works until its grace period ends,
 * otherwise active).
 */
export function keyState(key: KeyRecord, now: number): KeyState {
  if (key.revokedAt !== null) return "revoked";
  if (key.expiresAt !== null && now >= key.expiresAt) return "expired";
  if (key.disabledAt !== null) return "disabled";
  if (graceUntil(key, now) !== null) return "rotating";
  return "active";
}

/** When the value a rotation replaced stops working, while it still works; null otherwise. */
export function graceUntil(key: KeyRecord, now: number): number | null {
  return key.previousUntil !== null && now < key.previousUntil ? key.previousUntil : null;
}

export function limitsView(key: KeyRecord): LimitsView {
  return { rpm: key.limits.rpm, tpm: key.limits.tpm, max_parallel: key.limits.maxParallel };
}

/** What views need to tell where a window's period stands: the clock and the billing calendar. */
export interface ViewClock {
  now: () => number;
  calendar: PeriodCalendar;
}

/** Windows as their views show them, each in its current period. */
export function windowViews(
  windows: readonly StoredWindow[],
  now: number,
  calendar: PeriodCalendar,
): BudgetWindowView[] {
  const periods = calendar.at(now);
  return windows.map(({ period, budget, ...stored }) =>
    budgetWindowView(period, budget, currentWindowSpent(stored, periods[period].start), periods[period].end),
  );
}

/**
 * The key's first window as its deprecated `budget` shows it: the window, and its old names beside the new
 * ones (core/deprecated-names.ts) until they go.
 */
export function budgetView(key: KeyRecord, now: number, calendar: PeriodCalendar): BudgetView | null {
  if (key.budget === null) return null;
  const { start, end } = calendar.at(now)[key.period];
  const window = budgetWindowView(key.period, key.budget, currentWindowSpent(key, start), end);
  return { ...window, initial: window.amount, reset_at: window.resets_at };
}

/**
 * A key's complete view, in the Key schema's order: what its owner and operators see. Every audience gets it
 * through its own schema's serializer (keyView, keyListView, adminKeyView), never as it is.
 */
export function completeKeyView(key: KeyRecord, now: number, calendar: PeriodCalendar): KeyJson {
  return {
    id: key.id,
    name: key.name,
    account_id: key.accountId,
    hint: key.hint,
    created_at: iso(key.createdAt),
    expires_at: isoOrNull(key.expiresAt),
    revoked_at: isoOrNull(key.revokedAt),
    state: keyState(key, now),
    grace_until: isoOrNull(graceUntil(key, now)),
    disabled_at: isoOrNull(key.disabledAt),
    allowed_models: key.allowedModels,
    log_bodies: key.logBodies,
    budget: budgetView(key, now, calendar),
    budgets: windowViews(key.budgets, now, calendar),
    period: key.period,
    limits: limitsView(key),
    alert_at: key.alertAt,
    currency: CURRENCY,
    sharing: { priority: key.sharing.priority, max_wait_ms: key.sharing.maxWaitMs },
  };
}

// The lists ClientKey and ListedKey are picked by (key-schema.ts), not the schemas: the serving path, which
// writes keys but never validates one, does not load zod.
const clientKey = fieldSerializer(CLIENT_KEY_FIELDS);
const listedKey = fieldSerializer(LISTED_KEY_FIELDS);

/** A key as its own client sees it (GET /v1/key). */
export function keyView(key: KeyRecord, now: number, calendar: PeriodCalendar): KeyView {
  return clientKey(completeKeyView(key, now, calendar));
}

/** A key as listed to its owner or an operator by the CLI: the client view plus its revocation time. */
export function keyListView(
  key: KeyRecord,
  now: number,
  calendar: PeriodCalendar,
): z.output<typeof ListedKey> {
  return listedKey(completeKeyView(key, now, calendar));
}

export function accountView(account: AccountRecord, clock: ViewClock): AccountView {
  return {
    id: account.id,
    name: account.name,
    balance: rublesForJson(account.balance),
    currency: CURRENCY,
    created_at: iso(account.createdAt),
    sharing: {
      weight: account.weight ?? 1,
      priority: account.priority ?? null,
      max_wait_ms: account.maxWaitMs ?? null,
    },
    billing: account.billing,
    budgets: windowViews(account.budgets, clock.now(), clock.calendar),
    alert_at: account.alertAt,
    budget_alert_at: account.alertAt,
  };
}

const BUCKET_FIELDS = [
  ...LATENCY_BUCKETS_MS.map((bound) => [`lat_le_${bound}`, bound] as const),
  ["lat_le_inf", null] as const,
];

/** Requests of a day's counters: each request is counted in exactly one latency bucket. */
export function requestsOf(counters: UsageCounters): number {
  return BUCKET_FIELDS.reduce((sum, [field]) => sum + (counters[field] ?? 0), 0);
}

export function dailyUsageView(date: string, counters: UsageCounters): DailyUsage {
  const counts = BUCKET_FIELDS.map(([field, bound]) => ({ bound, count: counters[field] ?? 0 }));
  const requests = requestsOf(counters);
  const int = (field: string) => counters[field] ?? 0;
  return {
    date,
    requests,
    prompt_tokens: int("prompt_tokens"),
    cached_tokens: int("cached_tokens"),
    completion_tokens: int("completion_tokens"),
    cost: rublesForJson(int("cost")),
    errors: int("errors"),
    estimated: int("estimated"),
    avg_latency_ms: requests === 0 ? null : Math.round(int("latency_ms_sum") / requests),
    p50_latency_ms: quantile(counts, requests, 0.5),
    p95_latency_ms: quantile(counts, requests, 0.95),
  };
}

function quantile(
  counts: { bound: number | null; count: number }[],
  total: number,
  q: number,
): number | null {
  if (total === 0) return null;
  let seen = 0;
  for (const { bound, count } of counts) {
    seen += count;
    if (seen >= q * total) return bound;
  }
  return null;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}
