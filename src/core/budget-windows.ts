// Budget windows: a key, and an account, may each have up to three budgets at once, one per period (day,
// week, month in the billing time zone), each with its own amount, spent amount and reset. A request is
// admitted only if every window of its key and of its account can hold its worst case (the reserve and
// lease scripts, src/store/lua/includes/budgetWindows.lua). The rules for writing them are here, below
// every layer, so that the CLI, the admin API and the dashboard refuse the same input with the same words.

import { type Micros, readRubles } from "./money.js";
import { isPeriod, PERIODS, type Period } from "./periods.js";

/** Most windows a key or an account has. */
export const MAX_WINDOWS = 3;

/** A window as it is set: so much per period. */
export interface BudgetWindow {
  period: Period;
  budget: Micros;
}

/** A window as it is stored: with what was spent in the period that started at periodStart. */
export interface StoredWindow extends BudgetWindow {
  /** Spent in the period that started at periodStart; the current period's is currentWindowSpent's. */
  spent: Micros;
  periodStart: number;
}

/**
 * How an account pays (docs/billing.md, "Account modes"): prepaid — its balance limits its keys (the
 * default, and every account created before modes existed); budgeted — its windows alone do, no balance is
 * needed or charged (internal chargeback); both — its windows and its balance.
 */
export const BILLING_MODES = ["prepaid", "budgeted", "both"] as const;
export type BillingMode = (typeof BILLING_MODES)[number];

export function isBillingMode(value: unknown): value is BillingMode {
  return typeof value === "string" && (BILLING_MODES as readonly string[]).includes(value);
}

export const WINDOWS_RULE = `at most ${MAX_WINDOWS} budgets, each period (day, week, month) at most once`;

/**
 * Why a list of windows cannot be set, or null: more than MAX_WINDOWS, or a period twice. Amounts are checked
 * where they are read (money.ts).
 */
export function windowsProblem(windows: readonly BudgetWindow[]): string | null {
  if (windows.length > MAX_WINDOWS) return `${WINDOWS_RULE}; got ${windows.length}`;
  const seen = new Set<Period>();
  for (const { period } of windows) {
    if (seen.has(period)) return `${WINDOWS_RULE}; ${period} is given twice`;
    seen.add(period);
  }
  return null;
}

/** Why a mode cannot go with these windows, or null: a budgeted or both account needs a window, prepaid none. */
export function modeProblem(mode: BillingMode, windows: readonly BudgetWindow[]): string | null {
  if (mode === "prepaid" && windows.length > 0) {
    return "a prepaid account has no budgets of its own: give billing budgeted or both with budgets, or no budgets";
  }
  if (mode !== "prepaid" && windows.length === 0) {
    return `a ${mode} account needs at least one budget (such as 300000/month)`;
  }
  return null;
}

/**
 * A window written as the CLI and the dashboard take it, "<rubles>/<period>" ("100/day", "2000.50/month"),
 * or null when it is not one.
 */
export function readWindowText(text: string): BudgetWindow | null {
  const match = /^\s*([^/\s]+)\s*\/\s*([a-z]+)\s*$/.exec(text);
  if (!match) return null;
  const budget = readRubles(match[1] as string);
  const period = match[2];
  if (budget === undefined || budget <= 0 || !isPeriod(period)) return null;
  return { budget, period };
}

export const WINDOW_TEXT_RULE = `an amount in rubles per period (${PERIODS.join(", ")}), such as 100/day or 2000/month`;

/**
 * The spent amount of a window's current period (or of a key's spending period, kept without a budget too):
 * zero when a period boundary has passed since it was last charged, though Redis keeps the old figure until
 * the next request rolls it over. The views read spending only through this rule, never Redis' figure as it is.
 */
export function currentWindowSpent(
  window: Pick<StoredWindow, "spent" | "periodStart">,
  currentStart: number,
): Micros {
  return currentStart > window.periodStart ? 0 : window.spent;
}

/**
 * What remains of a budget: never less than nothing, though a reported overage (billing.overage: charge) or a
 * budget lowered below what was spent takes spending past it. The one place this is computed, for every view
 * of a window (the API's, the webhooks', the metrics').
 */
export function remainingBudget(budget: Micros, spent: Micros): Micros {
  return Math.max(0, budget - spent);
}
