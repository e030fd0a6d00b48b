// Admission leases as the request path uses them: the lease book (leases.ts) over the billing store's lease
// script, the change feed that invalidates them, the timer that refreshes them, and the reclaim a replica
// asks for when it must refuse a request while leases hold part of the budget.
//
// Leases are taken only where they are sound: Redis 7 or newer (sharded pub/sub for the change feed; a single
// server, Sentinel or a Cluster) and billing.overage "absorb" (a leased request must never cost more than its
// hold). Anywhere else every request reserves for itself, as before.

import { performance } from "node:perf_hooks";
import { Cluster, type Redis } from "ioredis";
import type { Logger } from "pino";
import type { KeyRef } from "../core/key-ref.js";
import type { ModelCheck } from "../core/model-check.js";
import type { Micros } from "../core/money.js";
import type { PeriodCalendar } from "../core/periods.js";
import { isRedisError } from "../core/redis-errors.js";
import type { BillingStore } from "../store/billing/billing-store.js";
import { ChangeFeed } from "../store/billing/change-feed.js";
import type { RedisClient } from "../store/connection/redis.js";
import type { RedisKeys } from "../store/redis-keys.js";
import type { Stores } from "../store/stores.js";
import { LEASE_SHARE, type LeaseAdmission } from "./lease-admission.js";
import { LeaseBook } from "./leases.js";
import type { SettlementHooks } from "./settlement-queue.js";

/** How long a refused request waits for other replicas to give lease back before it is reserved again. */
export const RECLAIM_WAIT_MS = 25;
const TICK_MS = 500;

export interface LeaseServiceDeps {
  redis: RedisClient;
  keys: RedisKeys;
  billing: Pick<BillingStore, "replicaId" | "lease">;
  calendar: PeriodCalendar;
  now: () => number;
  /** A lease lives as long as a reservation unless refreshed (billing.reservationTtlSeconds). */
  ttlMs: number;
  logger: Logger;
  /**
   * How often the book refreshes its leases and gives back idle ones (ms; TICK_MS by default). 0: never by a
   * timer of its own — whoever holds the service ticks the book, on a clock of its own (the money model's tests).
   */
  tickMs?: number;
}

export class LeaseService {
  readonly book: LeaseBook;
  private feed: ChangeFeed | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly lastReclaim = new Map<string, number>();

  constructor(private readonly deps: LeaseServiceDeps) {
    const { billing, calendar, now, ttlMs } = deps;
    this.book = new LeaseBook(billing.replicaId, {
      lease: (ref, leaseId, amount, grow, expected) => {
        const at = now();
        return billing.lease(ref, {
          leaseId,
          amount,
          now: at,
          periods: calendar.at(at),
          expiresAt: at + ttlMs,
          share: LEASE_SHARE,
          grow,
          expected,
        });
      },
      feedReady: (accountId) => this.feed?.ready(accountId) ?? false,
      now,
      // A script error was logged where it happened (observability/script-errors.ts) and an unreachable Redis
      // by its connection (store/connection/redis-watch.ts); anything else is a bug of ours.
      onError: (error) => {
        if (isRedisError(error)) deps.logger.debug({ err: error }, "admission lease call failed");
        else deps.logger.error({ err: error }, "admission lease call failed");
      },
    });
  }

  /** Starts the change feed when this Redis can carry it; without it no lease is ever taken. */
  async start(): Promise<void> {
    const { redis, logger } = this.deps;
    const info = await redis.info("server");
    const major = Number(/redis_version:(\d+)/.exec(info)?.[1] ?? 0);
    if (major < 7) {
      logger.info(
        { redis_major_version: major },
        "admission leases need Redis 7 (sharded pub/sub); they are off",
      );
      return;
    }
    // Named, so that an operator (or a test) can tell the replicas' feeds apart in CLIENT LIST. On a Cluster,
    // a subscriber per master (ioredis' sharded subscribers), each an account's channel goes to by its slot.
    const name = changeFeedName(this.deps.billing.replicaId);
    const connection =
      redis instanceof Cluster
        ? redis.duplicate([], {
            shardedSubscribers: true,
            enableOfflineQueue: true,
            redisOptions: { ...redis.options.redisOptions, connectionName: name, autoResubscribe: false },
          })
        : redis.duplicate({ enableOfflineQueue: true, autoResubscribe: false, connectionName: name });
    this.feed = new ChangeFeed(connection, this.deps.keys, {
      changed: (accountId, message) => this.book.changed(accountId, message),
      lost: () => this.book.releaseAll(),
      onError: (error) =>
        logger.warn(
          { err: (error as Error).message },
          "the change feed could not subscribe to an account's changes; its requests reserve for themselves",
        ),
    });
    await this.feed.start();
    const tickMs = this.deps.tickMs ?? TICK_MS;
    if (tickMs > 0) {
      this.timer = setInterval(() => this.book.tick(), tickMs);
      this.timer.unref();
    }
  }

  admit(ref: KeyRef, hash: string, model: ModelCheck, worst: Micros): LeaseAdmission | null {
    return this.feed === null ? null : this.book.admit(ref, hash, model, worst);
  }

  /**
   * A request was refused for its budget or balance while something was reserved: asks the replicas holding
   * lease on the key (or on the account, for the balance) to give back what they do not use, and waits a
   * moment for them to do it. At most once per key per RECLAIM_WAIT_MS.
   */
  async reclaim(ref: KeyRef, wholeAccount: boolean): Promise<boolean> {
    if (this.feed === null) return false;
    const target = wholeAccount ? "*" : ref.keyId;
    // Real time, not the billing clock: this is about how long this replica waits.
    const at = performance.now();
    const key = `${ref.accountId} ${target}`;
    if ((this.lastReclaim.get(key) ?? 0) > at - RECLAIM_WAIT_MS) return false;
    this.lastReclaim.set(key, at);
    if (this.lastReclaim.size > 10_000) this.lastReclaim.clear();
    await (this.deps.redis as Redis | Cluster).spublish(
      this.deps.keys.changes(ref.accountId),
      `reclaim ${target}`,
    );
    this.book.changed(ref.accountId, `reclaim ${target}`);
    await new Promise((resolve) => setTimeout(resolve, RECLAIM_WAIT_MS));
    return true;
  }

  /** The settlement queue's hooks: `next`, with each leased settlement's reply given to the book first. */
  settlementHooks(next: SettlementHooks): SettlementHooks {
    const { book } = this;
    return {
      ...next,
      settled: (settlement, result) => {
        if (settlement.leaseHold) book.settled(settlement.leaseHold, result);
        next.settled?.(settlement, result);
      },
      failed: (settlement, error) => {
        if (settlement.leaseHold) book.settled(settlement.leaseHold, null);
        next.failed?.(settlement, error);
      },
    };
  }

  /** Stops taking leases; waits up to `timeoutMs` for the calls giving them back to be answered. */
  async stop(timeoutMs: number): Promise<void> {
    clearInterval(this.timer);
    this.feed?.close();
    this.feed = null;
    this.book.releaseAll();
    await this.book.idle(timeoutMs);
  }
}

/** The lease service, or null where the configuration rules leases out (billing.leases, overage: charge). */
export function createLeases(
  billing: { leases: boolean; overage: "absorb" | "charge"; reservationTtlSeconds: number },
  deps: {
    redis: RedisClient;
    stores: Pick<Stores, "redisKeys" | "billing" | "calendar">;
    now: () => number;
    logger: Logger;
  },
): LeaseService | null {
  const { redis, stores, now, logger } = deps;
  if (!billing.leases || billing.overage !== "absorb") {
    logger.info(
      { leases: billing.leases, overage: billing.overage },
      "admission leases are off (billing.leases, or billing.overage: charge): every request reserves for itself",
    );
    return null;
  }
  return new LeaseService({
    redis,
    keys: stores.redisKeys,
    billing: stores.billing,
    calendar: stores.calendar,
    now,
    ttlMs: billing.reservationTtlSeconds * 1000,
    logger,
  });
}

/** The change feed connection's name (CLIENT SETNAME) for a replica. */
export function changeFeedName(replicaId: string): string {
  return `tunnel-gateway-changes-${replicaId}`;
}
