// Typed views of the Redis hashes that hold accounts and keys. Field names are the ones the Lua scripts
// write; amounts are integer micro-rubles, times epoch milliseconds.

import type { Micros } from "../billing/money.js";
import { isPeriod, type Period } from "../billing/periods.js";

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
}

export interface KeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** The last characters of the key value, to tell keys apart; not enough to use or guess the key. */
  hint: string;
  createdAt: number;
  expiresAt: number | null;
  budget: Micros | null;
  period: Period;
  /** Spent in the period that started at periodStart; see effectiveSpent for the current period. */
  spent: Micros;
  periodStart: number;
  allowedModels: string[] | null;
  logBodies: boolean;
  revokedAt: number | null;
  /** Budget alert thresholds in percent: null for the configured defaults, [] for none. */
  alertAt: number[] | null;
}

type Hash = Record<string, string>;

export function parseAccount(hash: Hash): AccountRecord | null {
  if (hash.id === undefined) return null;
  const account: AccountRecord = {
    id: hash.id,
    name: hash.name ?? hash.id,
    balance: int(hash.balance),
    createdAt: int(hash.created_at),
  };
  if (hash.token_hash) account.tokenHash = hash.token_hash;
  if (hash.token_hint) account.tokenHint = hash.token_hint;
  if (hash.low_balance) account.lowBalance = int(hash.low_balance);
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
    allowedModels: hash.models ? parseModels(hash.models) : null,
    logBodies: hash.log_bodies !== "0",
    revokedAt: optionalInt(hash.revoked_at),
    alertAt: hash.alert_at === undefined ? null : parseThresholds(hash.alert_at),
  };
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
