// Key and account records as the store reads them, for tests of the code that shows and judges them.

import type { AccountRecord, KeyRecord } from "../../src/store/records.js";

/** The hash of the value the record's key has (any 64 hex digits: nothing here hashes a value). */
export const HASH = "a".repeat(64);

export function keyRecord(fields: Partial<KeyRecord> = {}): KeyRecord {
  const record: KeyRecord = {
    id: "key_5m2x8q0c7w1r9t4z6b3n",
    accountId: "acme",
    name: "prod",
    hint: "a1b2",
    createdAt: Date.parse("2026-11-01T08:00:00Z"),
    expiresAt: null,
    budget: null,
    period: "month",
    spent: 0,
    periodStart: Date.parse("2026-11-01T00:00:00Z"),
    allowedModels: null,
    logBodies: true,
    revokedAt: null,
    disabledAt: null,
    limits: { rpm: null, tpm: null, maxParallel: null },
    hash: HASH,
    previousHash: null,
    previousUntil: null,
    alertAt: null,
    sharing: { priority: null, maxWaitMs: null },
    budgets: [],
    ...fields,
  };
  // A key with a budget has it as its first window, as the store reads it.
  if (fields.budgets === undefined && record.budget !== null) {
    const { budget, period, spent, periodStart } = record;
    record.budgets = [{ budget, period, spent, periodStart }];
  }
  return record;
}

export function accountRecord(fields: Partial<AccountRecord> = {}): AccountRecord {
  return {
    id: "acme",
    name: "Acme Corp",
    balance: 0,
    createdAt: Date.parse("2026-11-01T08:00:00Z"),
    billing: "prepaid",
    budgets: [],
    alertAt: null,
    ...fields,
  };
}
