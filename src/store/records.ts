// Typed views of the Redis hashes that hold accounts and keys. Field names are the ones the Lua scripts
// write; amounts are integer micro-rubles, times epoch milliseconds.

import { type BillingMode, isBillingMode, type StoredWindow } from "../core/budget-windows.js";
import type { Micros } from "../core/money.js";
import { isPeriod, type Period } from "../core/periods.js";

/** A budget window as the scripts write it (setWindows.lua), an account's
 * (AccountStore.setBudgets) as a key's (KeyChanges.windows): every value a string. */
export interface WindowWrite {
  period: string;
  budget: string;
  spent: string;
  period_start: string;
}

export interface AccountRecord {
  id: string;
  name: string;
  balance: Micros;
  createdAt: number;
  /** SHA-256 of the account's dashboard token, if it has one. */
  tokenHash?: string;
  /** Its last characters, to recognise it. */
  tokenHint?: string;
  /** The balance below which balance.low is announced, if the account has one. */
  lowBalance?: Micros;
  /** Its share of a full model server against other accounts' (docs/fair-sharing.md); 1 when unset. */
  weight?: number;
  /** The priority its requests carry to the model server, lower first, unless their key has its own. */
  priority?: number;
  /** The longest its requests wait for their turn (ms), when shorter than queue.maxWaitMs. */
  maxWaitMs?: number;
  /** How it pays: prepaid (an account without the field), budgeted or both (core/budget-windows.ts). */
  billing: BillingMode;
  /** Its own budget windows, shared by all its keys; [] for none. */
  budgets: StoredWindow[];
  /** Alert thresholds of its windows in percent: null for the configured defaults, [] for none. */
  alertAt: number[] | null;
}

export interface KeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** The last characters of the key value, to tell keys apart; not enough to use or guess the key. */
  hint: string;
  createdAt: number;
  expiresAt: number | null;
  /** The first window's budget, period, spent amount and start (the fields a key had before windows). */
  budget: Micros | null;
  period: Period;
  /** Spent in the period that started at periodStart; see currentSpent for the current period. */
  spent: Micros;
  periodStart: number;
  /** Every budget window, the first one first (the same as budget/period/spent); [] for none. */
  budgets: StoredWindow[];
  allowedModels: string[] | null;
  logBodies: boolean;
  revokedAt: number | null;
  /** Set while the key is disabled (it can be enabled again). */
  disabledAt: number | null;
  limits: KeyLimits;
  /**
   * SHA-256 of the value requests must present; null for a key created before values were recorded (every
   * value that maps to it is its own).
   */
  hash: string | null;
  /** SHA-256 of the value a rotation replaced ("*" for a key that had none recorded); null before any rotation. */
  previousHash: string | null;
  /** When the grace period of the value a rotation replaced ends; null before any rotation. */
  previousUntil: number | null;
  /** Budget alert thresholds in percent: null for the configured defaults, [] for none. */
  alertAt: number[] | null;
  /** How its requests share a full model server within its account (docs/fair-sharing.md). */
  sharing: KeySharing;
}

/** A key's own fair-sharing settings; null where its account's (or the configuration's) apply. */
export interface KeySharing {
  /** The priority its requests carry to the model server, lower first; at most as urgent as its account's. */
  priority: number | null;
  /** The longest its requests wait for their turn (ms). */
  maxWaitMs: number | null;
}

/** A key's optional limits; null where it has none. */
export interface KeyLimits {
  /** Requests per minute. */
  rpm: number | null;
  /** Tokens (prompt + completion) per minute. */
  tpm: number | null;
  /** Requests in flight at once. */
  maxParallel: number | null;
}

type Hash = Record<string, string>;

export function parseAccount(hash: Hash): AccountRecord | null {
  if (hash.id === undefined) return null;
  const account: AccountRecord = {
    id: hash.id,
    name: hash.name ?? hash.id,
    balance: int(hash.balance),
    createdAt: int(hash.created_at),
    billing: isBillingMode(hash.billing) ? hash.billing : "prepaid",
    budgets: parseWindows(hash),
    alertAt: hash.alert_at === undefined ? null : parseThresholds(hash.alert_at),
  };
  if (hash.token_hash) account.tokenHash = hash.token_hash;
  if (hash.token_hint) account.tokenHint = hash.token_hint;
  if (hash.low_balance) account.lowBalance = int(hash.low_balance);
  if (hash.weight) account.weight = int(hash.weight);
  if (hash.priority) account.priority = int(hash.priority);
  if (hash.max_wait_ms) account.maxWaitMs = int(hash.max_wait_ms);
  return account;
}

export function parseKey(hash: Hash): KeyRecord | null {
  if (hash.id === undefined || hash.account === undefined) return null;
  return {
    id: hash.id,
    accountId: hash.account,
    name: hash.name ?? "",
    hint: hash.hint ?? "",
    createdAt: int(hash.created_at),
    expiresAt: optionalInt(hash.expires_at),
    budget: optionalInt(hash.budget),
    period: isPeriod(hash.period) ? hash.period : "month",
    spent: int(hash.spent),
    periodStart: int(hash.period_start),
    budgets: parseWindows(hash),
    allowedModels: hash.models ? parseModels(hash.models) : null,
    logBodies: hash.log_bodies !== "0",
    revokedAt: optionalInt(hash.revoked_at),
    disabledAt: optionalInt(hash.disabled_at),
    limits: {
      rpm: optionalInt(hash.rpm),
      tpm: optionalInt(hash.tpm),
      maxParallel: optionalInt(hash.max_parallel),
    },
    hash: hash.hash ?? null,
    previousHash: hash.previous_hash ?? null,
    previousUntil: optionalInt(hash.previous_until),
    alertAt: hash.alert_at === undefined ? null : parseThresholds(hash.alert_at),
    sharing: { priority: optionalInt(hash.priority), maxWaitMs: optionalInt(hash.max_wait_ms) },
  };
}

/**
 * The field suffixes of the window slots: the first window in budget, period, spent and period_start (the
 * fields a key had before it could have several, so an old key reads as a key with one window), the second in
 * budget_2 ..., the third in budget_3 ... (src/store/lua/includes/budgetWindows.lua).
 */
export const WINDOW_SUFFIXES = ["", "_2", "_3"] as const;

/** The windows of a key or account hash, the first slot first; a slot without a budget is none. */
export function parseWindows(hash: Hash): StoredWindow[] {
  const windows: StoredWindow[] = [];
  for (const suffix of WINDOW_SUFFIXES) {
    const budget = optionalInt(hash[`budget${suffix}`]);
    if (budget === null) continue;
    const period = hash[`period${suffix}`];
    windows.push({
      budget,
      period: isPeriod(period) ? period : "month",
      spent: int(hash[`spent${suffix}`]),
      periodStart: int(hash[`period_start${suffix}`]),
    });
  }
  return windows;
}

export function parseModels(json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

/** Thresholds as the key record keeps them: percents, comma-separated ("" for none). */
export function parseThresholds(csv: string): number[] {
  return csv === "" ? [] : csv.split(",").map(Number);
}

function int(value: string | undefined): number {
  return value === undefined ? 0 : Number.parseInt(value, 10);
}

function optionalInt(value: string | undefined): number | null {
  return value === undefined || value === "" ? null : Number.parseInt(value, 10);
}
