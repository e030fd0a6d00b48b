// What a key's update is made of as the updateKey script takes it (every value a string), and what a change
// of its budget period is computed from (key-store.ts writes both).

import type { Micros } from "../../core/money.js";
import type { WindowWrite } from "../records.js";

/** What a period change is computed from: see KeyStore.periodSpending. */
export interface PeriodSpending {
  /** The key record's spent and period_start fields as stored ("" when absent). */
  read: { spent: string; periodStart: string };
  /** µ₽ charged on the days asked for, by the daily usage counters. */
  cost: Micros;
  /** The same day by day, in the order asked for. */
  dayCosts: Micros[];
}

/** Changes to a key as the updateKey script takes them: every value a string. */
export interface KeyChanges {
  name?: string;
  /** µ₽, or "" to remove the budget. */
  budget?: string;
  /** A JSON list, or "" to allow every model. */
  models?: string;
  log_bodies?: "1" | "0";
  /** Expiry time (ms), or "" for a key that never expires. */
  expires_at?: string;
  period?: string;
  period_start?: string;
  /** µ₽ spent in the new period so far. */
  spent?: string;
  /** Budget alert thresholds: percents "50,80,100", "" for none, "default" for the configured ones. */
  alert_at?: string;
  /** Limits: a whole number, or "" to remove the limit. */
  rpm?: string;
  tpm?: string;
  max_parallel?: string;
  /** Every budget window, replacing the key's (given without budget and period). */
  windows?: WindowWrite[];
}
