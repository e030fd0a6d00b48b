// Settlements happen after the response has gone to the client, never in its way, and none may be lost:
// one that fails because Redis is unreachable waits here and is retried with backoff until Redis answers,
// and flush() drains them all before a clean shutdown. Where redis.settlementReplicas asks for it, one is
// done only once a replica has acknowledged its write (WAIT): one that is not stays here and is sent again —
// after a failover, to the promoted master, which makes it if it never received it. The settle script writes
// a marker per settlement and makes nothing whose marker it finds, so sending one again cannot charge twice;
// the markers of settlements the queue is done with go with the account's next call, which deletes them.
// Sending again is bounded by billing.lateSettlementSeconds, how long the script remembers a settlement: one no
// replica acknowledged by then is given up (logged at error level, counted) and counts as made by its first
// answer; the books watch reports it if a failover lost that.
//
// Settlements of one account that finish within BATCH_WINDOW_MS of each other go to Redis in one script
// call. Under load that saves most of a command per request, on both sides: the gateway's client work and
// round trip, and Redis' command handling and wake-up. Nobody waits for it: the reservation holds the
// request's worst case until then, so the budget and the balance are never overspent in the meantime.
// Why 25 ms rather than 5, and what the longer window costs: docs/decisions.md.

import { isConnectionError } from "../core/redis-errors.js";
import type { BillingStore } from "../store/billing/billing-store.js";
import { type Settled, type Settlement, settlementMarker } from "../store/billing/settle-script.js";
import { PendingSettlements } from "./pending-settlements.js";
import { Acknowledgements } from "./settlement-acks.js";
import {
  DEFAULT_LATE_SETTLEMENT_MS,
  type Entry,
  overdue,
  type SettlementQueueOptions,
  unacknowledgedAgain,
} from "./settlement-entry.js";
import { callHook, type SettlementHooks } from "./settlement-hooks.js";
import { SettlementWait } from "./settlement-wait.js";

export type { SettlementHooks } from "./settlement-hooks.js";

/** How long a settlement may wait for others of its account to go with it. */
export const BATCH_WINDOW_MS = 25;
/** Most settlements in one script call (bounds the script's time in Redis). */
export const MAX_BATCH = 64;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;
/** Settlements no replica acknowledged are sent again after this, then less and less often. */
const FIRST_REPLICA_RETRY_MS = 250;
/**
 * Attempts for a settlement that Redis refuses with an error, or that fails in some other way that is not
 * Redis being unreachable. Only these attempts count: an outage, however long, uses up none of them.
 */
const MAX_REPLY_ERROR_ATTEMPTS = 5;

export class SettlementQueue {
  /** Per account, the settlements waiting for the batch window to close. */
  private readonly batches = new Map<string, Entry[]>();
  private batched = 0;
  private batchTimer: NodeJS.Timeout | undefined;
  private readonly waiting: Entry[] = [];
  private running = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private replicaTimer: NodeJS.Timeout | undefined;
  /** Entries sent again from `waiting` whose answer is not in yet. */
  private retrying = 0;
  private readonly wait: SettlementWait;
  private readonly now: () => number;
  private readonly lateSettlementMs: number;
  private delay = FIRST_RETRY_MS;
  private replicaDelay = FIRST_REPLICA_RETRY_MS;
  private idleWaiters: (() => void)[] = [];
  /** Markers of settlements this queue is done with, for the account's next call to delete. */
  private readonly acknowledged = new Acknowledgements();
  /** Every settlement submitted and not yet done or dropped. */
  readonly unsettled = new PendingSettlements();

  constructor(
    private readonly billing: Pick<BillingStore, "settleReplicated">,
    private readonly hooks: SettlementHooks = {},
    options: SettlementQueueOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.lateSettlementMs = options.lateSettlementMs ?? DEFAULT_LATE_SETTLEMENT_MS;
    this.wait = new SettlementWait(hooks, this.now);
  }

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
    batch.push({ settlement, replyErrors: 0, alone: false, unreplicated: false, unacknowledged: false });
    this.unsettled.add(settlement);
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
    this.retryNow(true);
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
    clearTimeout(this.replicaTimer);
    this.replicaTimer = undefined;
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

  /** Writes settlements of one account in one script call; `retry` for those sent again from `waiting`. */
  private send(entries: Entry[], retry = false): void {
    const first = entries[0] as Entry;
    const accountId = first.settlement.ref.accountId;
    this.running += entries.length;
    if (retry) this.retrying += entries.length;
    const answered = () => {
      this.running -= entries.length;
      if (retry) this.retrying -= entries.length;
    };
    this.changed();
    const acknowledged = this.acknowledged.take(accountId);
    this.billing
      .settleReplicated(
        accountId,
        entries.map((entry) => entry.settlement),
        acknowledged,
      )
      .then(
        ({ results, replicated }) => {
          answered();
          this.delay = FIRST_RETRY_MS;
          if (!replicated) return this.unreplicated(accountId, entries, results, acknowledged);
          this.replicaDelay = FIRST_REPLICA_RETRY_MS;
          for (let i = 0; i < entries.length; i++) this.done(entries[i] as Entry, results[i] as Settled);
          // Redis answers again: anything that was waiting for it can go now.
          if (this.waiting.length > 0) this.retryNow(false);
        },
        (error: unknown) => {
          answered();
          if (acknowledged.length > 0) this.acknowledged.giveBack(accountId, acknowledged);
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
              ...entry,
              replyErrors,
              alone: entry.alone || (!unreachable && entries.length > 1),
              unreplicated: false,
            });
          }
          // Queued before the hooks run, so that they see them counted as pending.
          this.waiting.push(...retried);
          this.schedule();
          for (const { settlement } of dropped) {
            // Never sent again: its marker, if the script wrote it, can go.
            this.forget(settlement);
            callHook(this.hooks, "failed", settlement, error);
          }
          for (const { settlement } of retried) callHook(this.hooks, "retrying", settlement, error);
        },
      )
      .finally(() => this.changed());
  }

  /**
   * The call's writes may be lost to a failover: its settlements wait to be sent again, those first answered
   * more than lateSettlementMs ago excepted (given up).
   */
  private unreplicated(
    accountId: string,
    entries: Entry[],
    results: readonly Settled[],
    acknowledged: readonly string[],
  ): void {
    if (acknowledged.length > 0) this.acknowledged.giveBack(accountId, acknowledged);
    const now = this.now();
    const kept = entries.map((entry, i) => unacknowledgedAgain(entry, results[i] as Settled, now));
    callHook(
      this.hooks,
      "unreplicated",
      entries.map((entry) => entry.settlement),
    );
    this.waiting.push(...this.withoutOverdue(kept));
    this.schedule();
  }

  /** Gives up the entries no replica acknowledged within lateSettlementMs of their first answer; the rest. */
  private withoutOverdue(entries: Entry[]): Entry[] {
    const now = this.now();
    const given = entries.filter((entry) => overdue(entry, now, this.lateSettlementMs));
    if (given.length === 0) return entries;
    callHook(
      this.hooks,
      "givenUp",
      given.map((entry) => entry.settlement),
    );
    for (const entry of given) this.done({ ...entry, unacknowledged: false }, entry.answer as Settled);
    return entries.filter((entry) => !given.includes(entry));
  }

  private done({ settlement, unacknowledged }: Entry, result: Settled): void {
    this.forget(settlement);
    if (unacknowledged && !result.duplicate && !result.nothing) {
      callHook(this.hooks, "replayed", settlement);
    }
    callHook(this.hooks, "settled", settlement, result);
  }

  private forget(settlement: Settlement): void {
    this.unsettled.remove(settlement);
    this.acknowledged.add(settlement.ref.accountId, settlementMarker(settlement));
  }

  private schedule(): void {
    if (this.retryTimer === undefined && this.waiting.some((entry) => !entry.unreplicated)) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.delay = Math.min(this.delay * 2, MAX_RETRY_MS);
        this.drainWaiting("redis");
      }, this.delay);
      this.retryTimer.unref();
    }
    if (this.replicaTimer === undefined && this.waiting.some((entry) => entry.unreplicated)) {
      this.replicaTimer = setTimeout(() => {
        this.replicaTimer = undefined;
        this.replicaDelay = Math.min(this.replicaDelay * 2, MAX_RETRY_MS);
        this.drainWaiting("replica");
      }, this.replicaDelay);
      this.replicaTimer.unref();
    }
  }

  /** Sends now what waits for Redis, and when `all`, what waits for a replica too. */
  private retryNow(all: boolean): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (all) {
      clearTimeout(this.replicaTimer);
      this.replicaTimer = undefined;
    }
    this.drainWaiting(all ? "all" : "redis");
  }

  /**
   * Sends what waits for Redis, for a replica, or both: those refused in a batch one by one, the others by
   * account again.
   */
  private drainWaiting(which: "redis" | "replica" | "all"): void {
    const together = new Map<string, Entry[]>();
    const kept: Entry[] = [];
    for (const entry of this.withoutOverdue(this.waiting.splice(0))) {
      if (which !== "all" && entry.unreplicated !== (which === "replica")) {
        kept.push(entry);
        continue;
      }
      if (entry.alone) {
        this.send([entry], true);
        continue;
      }
      const account = entry.settlement.ref.accountId;
      const batch = together.get(account) ?? [];
      batch.push(entry);
      together.set(account, batch);
    }
    this.waiting.push(...kept);
    for (const batch of together.values()) {
      for (let i = 0; i < batch.length; i += MAX_BATCH) this.send(batch.slice(i, i + MAX_BATCH), true);
    }
    this.schedule();
    this.changed();
  }

  private changed(): void {
    const first = this.waiting[0];
    this.wait.update(this.waiting.length + this.retrying, first?.unreplicated ? "replica" : "redis");
    callHook(this.hooks, "pendingChanged", this.pending);
    if (this.pending === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
