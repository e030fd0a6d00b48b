// What callers give the key service, checked and turned into what the store writes: an update's changes
// with their audit details, a budget period, a lifetime, a grace period, alert thresholds. Every error names
// the field and says what it accepts.

import type { BudgetWindow } from "../core/budget-windows.js";
import { GatewayError } from "../core/errors.js";
import { formatRubles, parsePositiveRubles } from "../core/money.js";
import { isPeriod, type Period } from "../core/periods.js";
import { readThresholds, THRESHOLDS_RULE } from "../core/thresholds.js";
import { validateLimit, validateModels, validateName } from "../core/validate.js";
import type { KeyChanges } from "../store/keys/key-changes.js";
import type { KeyLimits } from "../store/records.js";
import { amountText } from "./accounts.js";
import { windowDetails, windowsInput } from "./budgets.js";
import { parseGrace, parseLifetime } from "./lifetime.js";

/** Changes to a key: a field left undefined stays as it is; null budget/models remove the limit. */
export interface UpdateKeyInput {
  name?: unknown;
  budget?: unknown;
  period?: unknown;
  models?: unknown;
  logBodies?: unknown;
  /** A new lifetime counted from now (a duration such as 30d), or "never". */
  ttl?: unknown;
  /** New limits; null removes one. */
  rpm?: unknown;
  tpm?: unknown;
  maxParallel?: unknown;
  /** New budget alert thresholds in percent; [] for none; null for the configured ones. */
  alertAt?: unknown;
  /** Every budget window ({period, amount} or "100/day"), replacing the key's; [] or null for none. */
  budgets?: unknown;
}

/**
 * The changes an update asks for, checked (every one before the key is read, so that bad input is reported as
 * such, Redis or not): the key record's fields, the audit entry's details, and a new lifetime (ms; null for
 * never) to be counted from the moment of the change.
 */
export function requestedChanges(input: UpdateKeyInput): {
  changes: KeyChanges;
  details: Record<string, unknown>;
  lifetime: number | null | undefined;
  /** New windows, whose spent amounts the service reads from the usage (KeyService.update). */
  windows: BudgetWindow[] | undefined;
} {
  const changes: KeyChanges = {};
  const details: Record<string, unknown> = {};
  let windows: BudgetWindow[] | undefined;
  if (input.budgets !== undefined) {
    if (input.budget !== undefined || input.period !== undefined) {
      throw new GatewayError("invalid_request", "give budgets, or budget and period, not both");
    }
    windows = input.budgets === null ? [] : windowsInput(input.budgets);
    details.budgets = windowDetails(windows);
  }
  if (input.name !== undefined) {
    changes.name = validateName(input.name);
    details.name = changes.name;
  }
  if (input.budget === null) {
    // No budget: no window at all, not just the first one.
    windows = [];
    details.budget = null;
  } else if (input.budget !== undefined) {
    const budget = parsePositiveRubles(amountText(input.budget, "budget"), "budget");
    changes.budget = String(budget);
    details.budget = formatRubles(budget);
  }
  if (input.models !== undefined) {
    const models = input.models === null ? null : validateModels(input.models);
    changes.models = models === null ? "" : JSON.stringify(models);
    details.allowed_models = models;
  }
  const logBodies = booleanInput(input.logBodies, "log_bodies");
  if (logBodies !== undefined) {
    changes.log_bodies = logBodies ? "1" : "0";
    details.log_bodies = logBodies;
  }
  for (const [name, value] of [
    ["rpm", input.rpm],
    ["tpm", input.tpm],
    ["max_parallel", input.maxParallel],
  ] as const) {
    if (value === undefined) continue;
    const limit = value === null ? null : validateLimit(value, name);
    changes[name] = limit === null ? "" : String(limit);
    details[name] = limit;
  }
  if (input.alertAt !== undefined) {
    const alertAt = input.alertAt === null ? null : thresholdsInput(input.alertAt);
    changes.alert_at = alertAt === null ? "default" : alertAt.join(",");
    details.alert_at = alertAt;
  }
  const lifetime = input.ttl === undefined ? undefined : lifetimeInput(input.ttl);
  if (input.period !== undefined && !isPeriod(input.period)) {
    throw new GatewayError(
      "invalid_request",
      `period must be day, week or month; got ${JSON.stringify(input.period)}`,
    );
  }
  if (Object.keys(details).length === 0 && lifetime === undefined && input.period === undefined) {
    throw new GatewayError(
      "invalid_request",
      "nothing to change: give name, budget, period, budgets, models, log_bodies, ttl, rpm, tpm, max_parallel or alert_at",
    );
  }
  return { changes, details, lifetime, windows };
}

/**
 * A new key's windows: `budgets` (several), or `budget` per `period` (one; the form from before windows),
 * never both; and the period of the first window (month for a key without any).
 */
export function keyWindowsInput(input: { budget?: unknown; period?: unknown; budgets?: unknown }): {
  windows: BudgetWindow[];
  period: Period;
} {
  if (present(input.budgets) && (present(input.budget) || present(input.period))) {
    throw new GatewayError("invalid_request", "give budgets, or budget and period, not both");
  }
  const single = present(input.budget)
    ? parsePositiveRubles(amountText(input.budget, "budget"), "budget")
    : null;
  const singlePeriod = parsePeriod(input.period, single !== null);
  const windows = present(input.budgets)
    ? windowsInput(input.budgets)
    : single === null
      ? []
      : [{ budget: single, period: singlePeriod }];
  return { windows, period: windows[0]?.period ?? singlePeriod };
}

export function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

export function booleanInput(value: unknown, what: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw new GatewayError("invalid_request", `${what} must be true or false`);
  return value;
}

export function thresholdsInput(value: unknown): number[] {
  const thresholds = Array.isArray(value) ? readThresholds(value) : null;
  if (thresholds === null) {
    throw new GatewayError("invalid_request", `alert_at must be a list of ${THRESHOLDS_RULE}; [] for none`);
  }
  return thresholds;
}

export function parsePeriod(value: unknown, hasBudget: boolean): Period {
  if (!present(value)) return "month";
  if (!hasBudget)
    throw new GatewayError("invalid_request", "period is only meaningful with a budget; give both");
  if (!isPeriod(value)) {
    throw new GatewayError(
      "invalid_request",
      `period must be day, week or month; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export function graceInput(value: unknown): number {
  if (typeof value !== "string") {
    throw new GatewayError(
      "invalid_request",
      `grace must be 0 or a duration such as 24h; got ${JSON.stringify(value)}`,
    );
  }
  return parseGrace(value);
}

/** A key's limits as its audit entry records them. */
export function limitDetails(limits: KeyLimits): Record<string, number | null> {
  return { rpm: limits.rpm, tpm: limits.tpm, max_parallel: limits.maxParallel };
}

export function lifetimeInput(value: unknown): number | null {
  if (typeof value !== "string") {
    throw new GatewayError(
      "invalid_request",
      `ttl must be a duration such as 30d, or "never"; got ${JSON.stringify(value)}`,
    );
  }
  return parseLifetime(value);
}
