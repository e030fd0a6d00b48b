// Settlements happen after the response has gone to the client, never in its way, and none may be lost:
// one that fails because Redis is unreachable waits here and is retried with backoff until Redis answers,
// and flush() drains them all before a clean shutdown. The settle script deletes the reservation it settles
// and ignores an id it cannot find, so a retry after a lost reply cannot charge twice.

import type { BillingStore, Settled, SettleInput } from "../store/billing-store.js";
import type { KeyRef } from "../store/key-store.js";
import { isConnectionError } from "../store/redis.js";

export interface Settlement {
  ref: KeyRef;
  /**
   * For the metrics' key_name label; null for the release of a request that was never forwarded (its
   * reservation's reply was lost, and with it the key's name), which touches no per-key series.
   */
  keyName: string | null;
  input: SettleInput;
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
}

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;
/**
 * Attempts for a settlement that Redis refuses with an error, or that fails in some other way that is not
 * Redis being unreachable. Only these attempts count: an outage, however long, uses up none of them.
 */
const MAX_REPLY_ERROR_ATTEMPTS = 5;

export class SettlementQueue {
  /** `replyErrors`: how many of its attempts failed other than by Redis being unreachable. */
  private readonly waiting: { settlement: Settlement; replyErrors: number }[] = [];
  private running = 0;
  private timer: NodeJS.Timeout | undefined;
  private delay = FIRST_RETRY_MS;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly billing: BillingStore,
    private readonly hooks: SettlementHooks = {},
  ) {}

  /** Settlements not yet written to Redis (in flight or waiting for a retry). */
  get pending(): number {
    return this.running + this.waiting.length;
  }

  /** Settlements that failed at least once and wait for their retry (Redis away). */
  get waitingForRetry(): number {
    return this.waiting.length;
  }

  submit(settlement: Settlement): void {
    this.attempt(settlement, 0);
  }

  /** Resolves once every settlement has been written, or when `timeoutMs` passes; returns how many remain. */
  async flush(timeoutMs: number): Promise<number> {
    if (this.pending === 0) return 0;
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

  /** Stops retrying (for a process that is going away anyway). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private attempt(settlement: Settlement, replyErrors: number): void {
    this.running++;
    this.changed();
    this.billing
      .settle(settlement.ref, settlement.input)
      .then(
        (result) => {
          this.running--;
          this.delay = FIRST_RETRY_MS;
          this.hooks.settled?.(settlement, result);
          // Redis answers again: anything that was waiting can go now.
          if (this.waiting.length > 0) this.retryNow();
        },
        (error: unknown) => {
          this.running--;
          const errors = isConnectionError(error) ? replyErrors : replyErrors + 1;
          if (errors >= MAX_REPLY_ERROR_ATTEMPTS) {
            this.hooks.failed?.(settlement, error);
            return;
          }
          // Queued before the hook runs, so that the hook sees it counted as pending.
          this.waiting.push({ settlement, replyErrors: errors });
          this.schedule();
          this.hooks.retrying?.(settlement, error);
        },
      )
      .finally(() => this.changed());
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.delay = Math.min(this.delay * 2, MAX_RETRY_MS);
      this.drainWaiting();
    }, this.delay);
    this.timer.unref();
  }

  private retryNow(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.drainWaiting();
  }

  private drainWaiting(): void {
    for (const { settlement, replyErrors } of this.waiting.splice(0)) this.attempt(settlement, replyErrors);
  }

  private changed(): void {
    this.hooks.pendingChanged?.(this.pending);
    if (this.pending === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
