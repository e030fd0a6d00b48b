// The request path's money, in the order a request meets it: admission — on the replica's admission lease when
// it covers the request's worst case (admitOnLease), else by a reservation of its own in Redis (reserve: the
// one round trip before forwarding) —, then exactly one of settlement (the request ran: charged by the policy) or release (it ended
// before it could be metered: charged nothing, and what it held freed now rather than at its expiry).
// Everything is read from and written on the request itself (core/request.ts).

import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import type { ModelCheck } from "../core/model-check.js";
import type { RecordOutcome } from "../core/outcome.js";
import { isConnectionError } from "../core/redis-errors.js";
import type { GatewayRequest } from "../core/request.js";
import type {
  BillingStore,
  LimitState,
  Refusal,
  Reservation,
  ReserveInput,
} from "../store/billing/billing-store.js";
import type { WorstCase } from "./estimate.js";
import type { LeaseService } from "./lease-service.js";
import { refusalError } from "./refusals.js";
import { type SettlementRules, settlementOf } from "./settlement.js";
import type { SettlementQueue } from "./settlement-queue.js";

/** What an admitted request's key allows, as the forwarder applies it: its model list and per-minute limits. */
export interface Admitted {
  readonly allowedModels: readonly string[] | null;
  /** Where the key's per-minute limits stand; null for a limit it does not have. */
  readonly rpm: LimitState | null;
  readonly tpm: LimitState | null;
}

export interface RequestBillingDeps {
  store: Pick<BillingStore, "reserve">;
  /** Admission leases; null where they are off (docs/leases.md). */
  leases: Pick<LeaseService, "admit" | "reclaim"> | null;
  settlements: Pick<SettlementQueue, "submit">;
  rules: SettlementRules;
  /** billing.reservationTtlSeconds, in ms. */
  reservationTtlMs: number;
  /** Wall clock (ms). */
  now(): number;
  /** Reservations of an account were found expired (never settled) while reserving (the observer). */
  expiredReservations(count: number): void;
  logger: Logger;
}

export class RequestBilling {
  constructor(private readonly deps: RequestBillingDeps) {}

  /**
   * Admits the request's worst case (`worst`) for its key (`request.ref`, which must be set) on the replica's
   * admission lease, when the lease covers it: local arithmetic, no Redis round trip, no promise. Writes how it
   * was admitted on the request; null sends it to reserve().
   */
  admitOnLease(
    request: GatewayRequest,
    keyHash: string,
    model: ModelCheck,
    worst: WorstCase,
  ): Admitted | null {
    const leases = this.deps.leases;
    if (leases === null) return null;
    const leased = leases.admit(
      request.ref as NonNullable<GatewayRequest["ref"]>,
      keyHash,
      model,
      worst.amount,
    );
    if (leased === null) return null;
    request.reservationId = randomUUID();
    request.admission = "lease";
    request.reserved = worst.amount;
    request.leaseHold = leased;
    request.reservedAt = this.deps.now();
    request.keyName = leased.keyName;
    request.logBodies = leased.logBodies;
    return leased;
  }

  /**
   * Admits the request's worst case by a reservation of its own (reserve-5.lua): the one round trip before
   * forwarding. Writes how it was admitted on the request; throws the refusal's error of the table, or the
   * failure to reach Redis (having released whatever the lost reply may have reserved).
   */
  async reserve(
    request: GatewayRequest,
    keyHash: string,
    model: ModelCheck,
    worst: WorstCase,
  ): Promise<Admitted> {
    const { deps } = this;
    const ref = request.ref as NonNullable<GatewayRequest["ref"]>;
    const now = deps.now();
    const periods = deps.rules.calendar.at(now);
    const reservationId = randomUUID();
    request.reservationId = reservationId;
    const input: ReserveInput = {
      reservationId,
      amount: worst.amount,
      tokens: worst.promptTokens + worst.completionTokens,
      keyHash,
      now,
      periods,
      expiresAt: now + deps.reservationTtlMs,
      model,
    };
    let reservation = await this.reserveOnce(request, input);
    const reclaim = reclaimable(reservation);
    if (reclaim !== null && (await deps.leases?.reclaim(ref, reclaim === "balance"))) {
      // Other replicas' leases held part of what this request needs: they were asked to give back what they
      // do not use, and the request is reserved once more.
      reservation = await this.reserveOnce(request, input);
    }
    if (reservation.expired > 0) deps.expiredReservations(reservation.expired);
    if (!reservation.ok) {
      throw refusalError(
        reservation,
        worst,
        request.price as NonNullable<GatewayRequest["price"]>,
        model,
        periods,
      );
    }
    request.admission = "reserve";
    request.reserved = worst.amount;
    request.reservedAt = now;
    request.keyName = reservation.keyName;
    request.logBodies = reservation.logBodies;
    request.maxParallel = reservation.maxParallel;
    return reservation;
  }

  /**
   * Settles a request that ran (it has ended: GatewayRequest.end). Never throws: a charge that cannot be
   * worked out, or a settlement that cannot be handed over, is a bug of ours, logged, and the reservation is
   * released rather than charged on a guess.
   */
  settle(request: GatewayRequest): void {
    const { deps } = this;
    let settlement: ReturnType<typeof settlementOf>;
    try {
      settlement = settlementOf(request, deps.rules);
    } catch (error) {
      deps.logger.error(
        { request_id: request.requestId, err: error },
        "could not work out the charge; the reservation is released",
      );
      settlement = settlementOf(request, deps.rules, true);
    }
    try {
      deps.settlements.submit(settlement);
    } catch (error) {
      deps.logger.error(
        { request_id: request.requestId, err: error },
        "could not record the settlement; the reservation is released",
      );
      try {
        // Recorded as the gateway's failure: it could not bill the request.
        this.release(request, request.outcome, 500);
      } catch (failure) {
        deps.logger.error(
          { request_id: request.requestId, err: failure },
          "could not release the reservation either; it expires by itself",
        );
      }
    }
  }

  /**
   * Ends an admitted request without a charge: a settlement of nothing, which frees what its reservation (or
   * its lease hold) holds now, and lists the request among the key's recent ones as failed. If the reservation
   * was never made, it changes nothing.
   */
  release(request: GatewayRequest, outcome: RecordOutcome, status: number): void {
    request.outcome = outcome;
    request.status = status;
    request.end(this.deps.now(), performance.now());
    this.deps.settlements.submit(settlementOf(request, this.deps.rules, true));
  }

  /**
   * Reserves the request's worst case. When the reply is lost (Redis stalled, the connection dropped) the
   * script may have run all the same: what it may hold is released now, not after its expiry.
   */
  private async reserveOnce(request: GatewayRequest, input: ReserveInput): Promise<Reservation | Refusal> {
    try {
      return await this.deps.store.reserve(request.ref as NonNullable<GatewayRequest["ref"]>, input);
    } catch (error) {
      if (isConnectionError(error)) this.release(request, "redis_unavailable", 503);
      throw error;
    }
  }
}

/** A refusal for the budget or the balance while something was reserved: leases may be holding it. */
function reclaimable(reservation: Reservation | Refusal): "key" | "balance" | null {
  if (reservation.ok) return null;
  // An account window is shared by every key of the account: any of their leases may hold part of it.
  if (reservation.code === "budget_exceeded" && (reservation.keyReserved ?? 0) > 0) {
    return reservation.scope === "account" ? "balance" : "key";
  }
  if (reservation.code === "insufficient_balance" && (reservation.accountReserved ?? 0) > 0) return "balance";
  return null;
}
