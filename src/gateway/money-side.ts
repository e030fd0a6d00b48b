// The gateway's money off the request path, assembled, and its part of the lifecycle: the admission leases,
// the settlement queue (the lease book's mirror and the books watch first, then the settlement.* channels,
// core/channels.ts), the books watch and the reservation keeper; started, settled and stopped together. It
// wires; it decides nothing itself.

import type { Logger } from "pino";
import { BooksWatch } from "../billing/books-watch.js";
import { createLeases, type LeaseService } from "../billing/lease-service.js";
import { ReservationKeeper } from "../billing/reservation-keeper.js";
import { settlementChannels } from "../billing/settlement-channels.js";
import { SettlementQueue } from "../billing/settlement-queue.js";
import type { Config } from "../config/schema.js";
import type { GatewayEvents } from "../core/channels.js";
import type { SettlementObserver } from "../observability/observer.js";
import type { RequestTracker } from "../proxy/request-tracker.js";
import type { RedisClient } from "../store/connection/redis.js";
import type { Stores } from "../store/stores.js";

export interface MoneySideParts {
  config: Pick<Config, "billing">;
  redis: RedisClient;
  stores: Stores;
  tracker: RequestTracker;
  events: GatewayEvents;
  /** Where the books watch reports drift. */
  observer: Pick<SettlementObserver, "drift">;
  logger: Logger;
  now(): number;
}

export interface MoneySide {
  /** The replica's admission leases; null where they are off. */
  leases: LeaseService | null;
  settlements: SettlementQueue;
  /** Once Redis serves: the books watch, and the admission leases (off, with a warning, if they cannot start). */
  start(driftCheckMs: number): void;
  /** Every settlement written and the leases given back (nothing stays reserved); new requests take new ones. */
  settled(timeoutMs: number): Promise<void>;
  /** After the drain: leases given back, pending settlements written (within `flushMs`), all stopped. */
  stop(flushMs: number): Promise<void>;
  /** The start failed (a listener could not bind): stops what was started, writing nothing more. */
  abandon(): void;
}

export function assembleMoneySide(parts: MoneySideParts): MoneySide {
  const { config, redis, stores, now, logger } = parts;
  const leases = createLeases(config.billing, { redis, stores, now, logger });
  const booksWatch = new BooksWatch({
    billing: stores.billing,
    pending: { of: (accountId) => settlements.unsettled.of(accountId) },
    drift: (report) => parts.observer.drift(report),
    onError: (error) => logger.debug({ err: (error as Error).message }, "the books could not be checked"),
  });
  // The lease book's mirror first, then what is told of the settlement (settlement.* channels).
  const told = settlementChannels(parts.events);
  const chained = leases ? leases.settlementHooks(told) : told;
  const settlements = new SettlementQueue(
    stores.billing,
    {
      ...chained,
      settled: (settlement, result) => {
        booksWatch.settled(settlement, result);
        chained.settled?.(settlement, result);
      },
    },
    { now, lateSettlementMs: config.billing.lateSettlementSeconds * 1000 },
  );
  const keeper = new ReservationKeeper(
    stores.billing,
    parts.tracker,
    config.billing.reservationTtlSeconds * 1000,
    now,
    (error) =>
      logger.warn({ err: (error as Error).message }, "could not extend reservations of running requests"),
  );
  keeper.start();
  return {
    leases,
    settlements,
    start(driftCheckMs) {
      booksWatch.start(driftCheckMs);
      leases
        ?.start()
        .catch((error: unknown) =>
          logger.warn({ err: (error as Error).message }, "admission leases could not start; they are off"),
        );
    },
    async settled(timeoutMs) {
      await settlements.flush(timeoutMs);
      leases?.book.releaseAll();
      await settlements.flush(timeoutMs);
      await leases?.book.idle(timeoutMs);
    },
    async stop(flushMs) {
      keeper.stop();
      // Leases are given back: what requests do not hold at once, the rest as their settlements land.
      leases?.book.releaseAll();
      const unsettled = await settlements.flush(flushMs);
      await leases?.stop(flushMs);
      if (unsettled > 0) {
        logger.error(
          { unsettled },
          "settlements could not be written, or acknowledged by a replica, before exiting",
        );
      }
      settlements.close();
      booksWatch.stop();
    },
    abandon() {
      keeper.stop();
      void leases?.stop(0);
      settlements.close();
    },
  };
}
