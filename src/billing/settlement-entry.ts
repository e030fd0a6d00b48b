// One settlement as the settlement queue (settlement-queue.ts) keeps it between attempts, and the rule that
// bounds how long one no replica acknowledged is sent again.

import type { Settled, Settlement } from "../store/billing/settle-script.js";

export interface Entry {
  settlement: Settlement;
  /** How many of its attempts failed other than by Redis being unreachable. */
  replyErrors: number;
  /**
   * Retried on its own: it was in a batch Redis refused, and one bad settlement must not take the others
   * down with it.
   */
  alone: boolean;
  /** Written, but no replica acknowledged it: sent again on the replica backoff, not as soon as Redis answers. */
  unreplicated: boolean;
  /** An attempt was answered without a replica's acknowledgement (a later one may have failed since). */
  unacknowledged: boolean;
  /** When an attempt was first answered without a replica's acknowledgement (the queue's clock). */
  unacknowledgedSince?: number;
  /** What that answer said (or a later one that was not a duplicate): what the settlement is done with if given up. */
  answer?: Settled;
}

export interface SettlementQueueOptions {
  /** The billing clock (ms). */
  now?: () => number;
  /** How long a settlement no replica acknowledged is sent again (billing.lateSettlementSeconds, in ms). */
  lateSettlementMs?: number;
}

/** billing.lateSettlementSeconds' default, for a queue given none. */
export const DEFAULT_LATE_SETTLEMENT_MS = 86_400_000;

/** The entry after an attempt answered without a replica's acknowledgement, at `now`. */
export function unacknowledgedAgain(entry: Entry, result: Settled, now: number): Entry {
  return {
    ...entry,
    unreplicated: true,
    unacknowledged: true,
    unacknowledgedSince: entry.unacknowledgedSince ?? now,
    // The first answer made it, or said what made it; a later duplicate says nothing of what it did.
    answer: entry.answer === undefined || !result.duplicate ? result : entry.answer,
  };
}

/**
 * Whether it is no longer to be sent again: first answered without an acknowledgement `lateSettlementMs` ago
 * or more. Past billing.lateSettlementSeconds the settle script may no longer remember it (its marker and its
 * reservation's record expire), and a copy could charge it twice.
 */
export function overdue(entry: Entry, now: number, lateSettlementMs: number): boolean {
  return entry.unacknowledgedSince !== undefined && now - entry.unacknowledgedSince >= lateSettlementMs;
}
