// Budget windows as callers give them (the admin API's [{period, amount}], the CLI's "100/day"), checked and
// turned into what the store writes, and the account's own budgets and billing mode (docs/billing.md,
// "Account budgets"). A new window's spent amount is what was charged since its period began, summed from
// the daily usage counters; a window of a period that was there keeps its own (setWindows.lua).

import {
  type BillingMode,
  type BudgetWindow,
  isBillingMode,
  modeProblem,
  readWindowText,
  WINDOW_TEXT_RULE,
  windowsProblem,
} from "../core/budget-windows.js";
import { GatewayError } from "../core/errors.js";
import { formatRubles, parsePositiveRubles } from "../core/money.js";
import { type CurrentPeriods, dayStamp, isPeriod } from "../core/periods.js";
import { readThresholds, THRESHOLDS_RULE } from "../core/thresholds.js";
import { type Actor, auditEntry } from "../store/audit/audit-store.js";
import type { AccountRecord, WindowWrite } from "../store/records.js";
import type { Stores } from "../store/stores.js";
import { amountText } from "./accounts.js";

/** Reads and writes before giving up on an account that is charged all the while. */
const ATTEMPTS = 5;
const DAY_MS = 86_400_000;

/**
 * Budget windows from a caller: a list of {period, amount} objects or of "<rubles>/<period>" texts, at most
 * three, each period at most once. Every error names the field.
 */
export function windowsInput(value: unknown, what = "budgets"): BudgetWindow[] {
  if (!Array.isArray(value)) {
    throw new GatewayError(
      "invalid_request",
      `${what} must be a list such as [{"period":"month","amount":300000}]`,
    );
  }
  const windows = value.map((item, i): BudgetWindow => {
    if (typeof item === "string") {
      const window = readWindowText(item);
      if (window === null) {
        throw new GatewayError(
          "invalid_request",
          `${what}[${i}] must be ${WINDOW_TEXT_RULE}; got ${JSON.stringify(item)}`,
        );
      }
      return window;
    }
    const { period, amount } = (item ?? {}) as { period?: unknown; amount?: unknown };
    if (!isPeriod(period)) {
      throw new GatewayError(
        "invalid_request",
        `${what}[${i}].period must be day, week or month; got ${JSON.stringify(period) ?? "nothing"}`,
      );
    }
    return {
      period,
      budget: parsePositiveRubles(amountText(amount, `${what}[${i}].amount`), `${what}[${i}].amount`),
    };
  });
  const problem = windowsProblem(windows);
  if (problem !== null) throw new GatewayError("invalid_request", `${what}: ${problem}`);
  return windows;
}

/** Windows as the audit log records them: "100/day". */
export function windowDetails(windows: readonly BudgetWindow[]): string[] {
  return windows.map(({ budget, period }) => `${formatRubles(budget)}/${period}`);
}

/**
 * Windows as the scripts write them: each starts in its current period, with what `days` (YYYY-MM-DD, oldest
 * first) cost since that period's first day as its spent amount (a window of a period the hash already has
 * keeps its own instead: setWindows.lua).
 */
export function windowWrites(
  windows: readonly BudgetWindow[],
  periods: CurrentPeriods,
  zone: string,
  days: readonly string[],
  dayCosts: readonly number[],
): WindowWrite[] {
  return windows.map(({ period, budget }) => {
    const start = periods[period].start;
    const first = dayStamp(start, zone);
    const spent = days.reduce((sum, day, d) => (day >= first ? sum + (dayCosts[d] ?? 0) : sum), 0);
    return { period, budget: String(budget), spent: String(spent), period_start: String(start) };
  });
}

/** The calendar days (billing time zone) of the current month up to today: every window's period is inside. */
export function monthDays(periods: CurrentPeriods, now: number, zone: string): string[] {
  const start = Math.min(periods.month.start, periods.week.start);
  const last = dayStamp(now, zone);
  const days: string[] = [];
  for (let at = start; ; at += DAY_MS) {
    const day = dayStamp(at, zone);
    if (day > last) break;
    if (days.at(-1) !== day) days.push(day);
  }
  return days;
}

export interface AccountBudgetsInput {
  billing?: unknown;
  /** Every window, replacing the account's; [] for none; omitted: as they are. */
  budgets?: unknown;
  /** Alert thresholds of the windows in percent; [] for none; null for the configured ones. */
  alertAt?: unknown;
}

/** The stores BudgetService reads and writes. */
export type BudgetStores = Pick<Stores, "accounts" | "calendar" | "now">;

export class BudgetService {
  constructor(private readonly stores: BudgetStores) {}

  /**
   * Sets how the account pays and its own windows. Budgets given to a prepaid account without a mode make it
   * "both" (the windows on top of its balance: nothing gets looser); no budgets without a mode make it
   * prepaid. A budgeted or both account needs a window, a prepaid one has none.
   */
  async setAccountBudgets(
    accountId: unknown,
    input: AccountBudgetsInput,
    actor: Actor,
  ): Promise<AccountRecord> {
    if (input.billing !== undefined && !isBillingMode(input.billing)) {
      throw new GatewayError(
        "invalid_request",
        `billing must be prepaid, budgeted or both; got ${JSON.stringify(input.billing)}`,
      );
    }
    const windows = input.budgets === undefined ? undefined : windowsInput(input.budgets);
    const alertAt =
      input.alertAt === undefined ? undefined : input.alertAt === null ? null : thresholdsOf(input.alertAt);
    if (input.billing === undefined && windows === undefined && alertAt === undefined) {
      throw new GatewayError("invalid_request", "nothing to change: give billing, budgets or alert_at");
    }
    const account = await this.stores.accounts.require(String(accountId));
    const wanted = windows ?? account.budgets.map(({ period, budget }) => ({ period, budget }));
    const billing: BillingMode =
      (input.billing as BillingMode | undefined) ??
      (wanted.length === 0 ? "prepaid" : account.billing === "prepaid" ? "both" : account.billing);
    const problem = modeProblem(billing, wanted);
    if (problem !== null) throw new GatewayError("invalid_request", problem);

    const details: Record<string, unknown> = { billing, budgets: windowDetails(wanted) };
    if (alertAt !== undefined) details.alert_at = alertAt;
    const audit = auditEntry(actor, this.stores.now(), "account.budgets.update", account.id, details);
    const zone = this.stores.calendar.zone;
    for (let attempt = 1; ; attempt++) {
      const now = this.stores.now();
      const periods = this.stores.calendar.at(now);
      const days = monthDays(periods, now, zone);
      const month = dayStamp(now, zone).slice(0, 7);
      const { requests, dayCosts } = await this.stores.accounts.budgetSpending(account.id, days, month);
      const result = await this.stores.accounts.setBudgets(
        account.id,
        {
          billing,
          windows: windowWrites(wanted, periods, zone, days, dayCosts),
          alertAt: alertAt === undefined ? "keep" : alertAt === null ? "default" : alertAt.join(","),
          month,
          requests,
        },
        audit,
      );
      if (result === "ok") return this.stores.accounts.require(account.id);
      if (attempt === ATTEMPTS) {
        throw new GatewayError(
          "service_unavailable",
          `account ${account.id} was charged during each of ${ATTEMPTS} attempts to set its budgets; try again`,
        );
      }
    }
  }
}

function thresholdsOf(value: unknown): number[] {
  const thresholds = Array.isArray(value) ? readThresholds(value) : null;
  if (thresholds === null) {
    throw new GatewayError("invalid_request", `alert_at must be a list of ${THRESHOLDS_RULE}; [] for none`);
  }
  return thresholds;
}
