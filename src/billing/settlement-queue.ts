// Settlements happen after the response has gone to the client, never in its way, and none may be lost:
// one that fails because Redis is unreachable waits here and is retried with backoff until Redis answers,
// and flush() drains them all before a clean shutdown. The settle script deletes the reservation it settles
// and ignores an id it cannot find, so a retry after a lost reply cannot charge twice.
//
// Settlements of one account that finish within BATCH_WINDOW_MS of each other go to Redis in one script
// call. Under load that saves most of a command per request, on both sides: the gateway's client work and
// round trip, and Redis' command handling. Nobody waits for it: the reservation holds the request's worst
// case until then, so the budget and the balance are never overspent in the meantime.

import { isConnectionError } from "../core/redis-errors.js";
import type { BillingStore } from "../store/billing-store.js";
import type { Settled, Settlement } from "../store/settle-script.js";
import type { Acknowledgements } from "./settlement-acks.js";

/** What the queue needs of the lease book: the markers of leased settlements whose reply was read. */
export interface LeaseSettlements {
  readonly acknowledged: Acknowledgements;
}

export interface SettlementHooks {
  settled?(settlement: Settlement, result: Settled): void;
  /**
   * A settlement failed MAX_REPLY_ERROR_ATTEMPTS times in a way retrying does not fix (a script error, a bug of
   * ours); it is logged in full and dropped.
   */
  failed?(settlement: Settlement, error: unknown): void;
  retrying?(settlement: Settlement, error: unknown): void;
  pendingChanged?(pending: number): void;
  /** A hook threw; the queue carried on. */
  hookFailed?(hook: string, error: unknown): void;
}

/** How long a settlement may wait for others of its account to go with it. */
export const BATCH_WINDOW_MS = 5;
/** Most settlements in one script call (bounds the script's time in Redis). */
export const MAX_BATCH = 64;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;
/**
 * Attempts for a settlement that Redis refuses with an error, or that fails in some other way that is not
 * Redis being unreachable. Only these attempts count: an outage, however long, uses up none of them.
 */
const MAX_REPLY_ERROR_ATTEMPTS = 5;

interface Entry {
  settlement: Settlement;
  /** How many of its attempts failed other than by Redis being unreachable. */
  replyErrors: number;
  /**
   * Retried on its own: it was in a batch Redis refused, and one bad settlement must not take the others
   * down with it.
   */
  alone: boolean;
}

export class SettlementQueue {
  /** Per account, the settlements waiting for the batch window to close. */
  private readonly batches = new Map<string, Entry[]>();
  private batched = 0;
  private batchTimer: NodeJS.Timeout | undefined;
  private readonly waiting: Entry[] = [];
  private running = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private delay = FIRST_RETRY_MS;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly billing: Pick<BillingStore, "settleMany">,
    private readonly hooks: SettlementHooks = {},
    private readonly leases: LeaseSettlements | null = null,
  ) {}

  /** Settlements not yet written to Redis (batched, in flight or waiting for a retry). */
  get pending(): number {
    return this.batched + this.running + this.waiting.length;
  }

  /** Settlements that failed at least once and wait for their retry (Redis away). */
  get waitingForRetry(): number {
    return this.waiting.length;
  }

  submit(settlement: Settlement): void {
    const account = settlement.ref.accountId;
    let batch = this.batches.get(account);
    if (batch === undefined) {
      batch = [];
      this.batches.set(account, batch);
    }
    batch.push({ settlement, replyErrors: 0, alone: false });
    this.batched++;
    if (batch.length >= MAX_BATCH) {
      this.batches.delete(account);
      this.batched -= batch.length;
      this.send(batch);
    } else {
      this.batchTimer ??= setTimeout(this.sendBatches, BATCH_WINDOW_MS);
      this.changed();
    }
  }

  /** Resolves once every settlement has been written, or when `timeoutMs` passes; returns how many remain. */
  async flush(timeoutMs: number): Promise<number> {
    if (this.pending === 0) return 0;
    this.sendBatches();
    this.retryNow();
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
      new Promise<void>((resolve) => {
        timeout = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timeout);
    return this.pending;
  }

  /** Stops retrying (for a process that is going away anyway, after flush). */
  close(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private readonly sendBatches = (): void => {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    if (this.batched === 0) return;
    const batches = [...this.batches.values()];
    this.batches.clear();
    this.batched = 0;
    for (const batch of batches) this.send(batch);
  };

  /** Writes settlements of one account in one script call. */
  private send(entries: Entry[]): void {
    const first = entries[0] as Entry;
    const accountId = first.settlement.ref.accountId;
    this.running += entries.length;
    this.changed();
    const leases = this.leases;
    const acknowledged = leases?.acknowledged.take(accountId) ?? [];
    this.billing
      .settleMany(
        accountId,
        entries.map((entry) => entry.settlement),
        acknowledged,
      )
      .then(
        (results) => {
          this.running -= entries.length;
          this.delay = FIRST_RETRY_MS;
          for (let i = 0; i < entries.length; i++) {
            this.hook("settled", (entries[i] as Entry).settlement, results[i] as Settled);
          }
          // Redis answers again: anything that was waiting can go now.
          if (this.waiting.length > 0) this.retryNow();
        },
        (error: unknown) => {
          this.running -= entries.length;
          if (acknowledged.length > 0) leases?.acknowledged.giveBack(accountId, acknowledged);
          const unreachable = isConnectionError(error);
          const retried: Entry[] = [];
          const dropped: Entry[] = [];
          for (const entry of entries) {
            const replyErrors = unreachable ? entry.replyErrors : entry.replyErrors + 1;
            if (replyErrors >= MAX_REPLY_ERROR_ATTEMPTS) {
              dropped.push(entry);
              continue;
            }
            retried.push({
              settlement: entry.settlement,
              replyErrors,
              alone: entry.alone || (!unreachable && entries.length > 1),
            });
          }
          // Queued before the hooks run, so that they see them counted as pending.
          this.waiting.push(...retried);
          this.schedule();
          for (const { settlement } of dropped) this.hook("failed", settlement, error);
          for (const { settlement } of retried) this.hook("retrying", settlement, error);
        },
      )
      .finally(() => this.changed());
  }

  private schedule(): void {
    if (this.retryTimer || this.waiting.length === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.delay = Math.min(this.delay * 2, MAX_RETRY_MS);
      this.drainWaiting();
    }, this.delay);
    this.retryTimer.unref();
  }

  private retryNow(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.drainWaiting();
  }

  /** Sends what waits for a retry: those refused in a batch one by one, the others by account again. */
  private drainWaiting(): void {
    const together = new Map<string, Entry[]>();
    for (const entry of this.waiting.splice(0)) {
      if (entry.alone) {
        this.send([entry]);
        continue;
      }
      const account = entry.settlement.ref.accountId;
      const batch = together.get(account) ?? [];
      batch.push(entry);
      together.set(account, batch);
    }
    for (const batch of together.values()) {
      for (let i = 0; i < batch.length; i += MAX_BATCH) this.send(batch.slice(i, i + MAX_BATCH));
    }
  }

  /**
   * Calls a hook. A hook that throws (a metric, a log write) is reported to `hookFailed` and otherwise
   * ignored: it must neither lose the settlement nor become an unhandled rejection that ends the process.
   */
  private hook<Name extends "settled" | "failed" | "retrying">(
    name: Name,
    settlement: Settlement,
    detail: Parameters<NonNullable<SettlementHooks[Name]>>[1],
  ): void {
    try {
      (this.hooks[name] as ((s: Settlement, d: typeof detail) => void) | undefined)?.(settlement, detail);
    } catch (error) {
      this.hooks.hookFailed?.(name, error);
    }
  }

  private changed(): void {
    try {
      this.hooks.pendingChanged?.(this.pending);
    } catch (error) {
      this.hooks.hookFailed?.("pendingChanged", error);
    }
    if (this.pending === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
