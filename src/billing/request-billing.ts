// The request path's money, in the order a request meets it. The path asks twice: admit (its price, cap, worst
// case and estimates worked out at once — admission-terms.ts —, then admitted on the replica's admission lease
// when it covers the worst case, else by a reservation of its own in Redis: the one round trip before
// forwarding), then settle (the request ran: charged by the policy). Release ends an admitted request that
// ended before it could be metered: charged nothing, and what it held freed now rather than at its expiry.
// How it was admitted is written on the request itself (core/request.ts).

import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import type { GatewayEvents } from "../core/channels.js";
import type { KeyRef } from "../core/key-ref.js";
import type { ModelCheck } from "../core/model-check.js";
import type { RecordOutcome } from "../core/outcome.js";
import { isConnectionError } from "../core/redis-errors.js";
import type { AdmittedRequest, GatewayRequest, ReservedRequest } from "../core/request.js";
import type { BillingStore } from "../store/billing/billing-store.js";
import type { LimitState, Refusal, Reservation, ReserveInput } from "../store/billing/reserve-script.js";
import type { Settlement } from "../store/billing/settle-script.js";
import { type AdmissionAsk, type AdmissionTerms, admissionTerms } from "./admission-terms.js";
import type { WorstCase } from "./estimate.js";
import type { LeaseService } from "./lease-service.js";
import type { Pricing } from "./pricing.js";
import { refusalError } from "./refusals.js";
import { releaseOf, type SettlementRules, settlementOf } from "./settlement.js";
import type { SettlementQueue } from "./settlement-queue.js";

/** What an admitted request's key allows, as the forwarder applies it: its model list and per-minute limits. */
export interface Admitted {
  readonly allowedModels: readonly string[] | null;
  /** Where the key's per-minute limits stand; null for a limit it does not have. */
  readonly rpm: LimitState | null;
  readonly tpm: LimitState | null;
}

/** Admitted, with what admission committed to: the request (priced, named), its terms, what its key allows. */
export interface Admission extends AdmissionTerms, Admitted {
  readonly request: AdmittedRequest;
}

/** Who asks to be admitted: the credential's key and its hash (the reserve script checks it). */
export interface Admittee {
  readonly ref: KeyRef;
  readonly hash: string;
}

export interface RequestBillingDeps {
  pricing: Pick<Pricing, "priceFor">;
  /** billing.maxPromptTokens: the most prompt tokens a credible report may claim without a context length. */
  maxPromptTokens: number;
  store: Pick<BillingStore, "reserve">;
  /** Admission leases; null where they are off (docs/leases.md). */
  leases: Pick<LeaseService, "admit" | "reclaim"> | null;
  settlements: Pick<SettlementQueue, "submit">;
  rules: SettlementRules;
  /** billing.reservationTtlSeconds, in ms. */
  reservationTtlMs: number;
  /** Wall clock (ms). */
  now(): number;
  /** Where it tells that reservations of an account were found expired (reservations.expired). */
  events: Pick<GatewayEvents, "publish">;
  logger: Logger;
}

export class RequestBilling {
  constructor(private readonly deps: RequestBillingDeps) {}

  /**
   * Admits the request `ask` describes for `who`: prices it (written on the request before anything can refuse
   * it), works out its terms, then admits its worst case on the lease or by a reservation (admitWorst). A
   * promise only when Redis is asked. Throws the refusal's error of the table.
   */
  admit(
    request: GatewayRequest,
    who: Admittee,
    check: ModelCheck,
    ask: AdmissionAsk,
  ): Admission | Promise<Admission> {
    const price = this.deps.pricing.priceFor(ask.model);
    // Priced and named from here: a refusal is reported with its price, a lost reply released by its id.
    const priced = Object.assign(request, { price, ref: who.ref, reservationId: randomUUID() });
    const terms = admissionTerms(ask, price, this.deps.rules.estimate, this.deps.maxPromptTokens);
    priced.promptEstimate = terms.promptEstimate;
    priced.maxCompletionTokens = terms.maxCompletionTokens;
    priced.maxPromptTokens = terms.maxPromptTokens;
    priced.admittingAt = performance.now();
    const admitted = this.admitWorst(priced, who.hash, check, terms.worst);
    return admitted instanceof Promise
      ? admitted.then((granted) => admissionOf(priced, terms, granted))
      : admissionOf(priced, terms, admitted);
  }

  /**
   * Admits `worst` for the priced and named request on the replica's admission lease when it covers it, else
   * by a reservation of its own. `keyHash` is the credential's hash (the reserve script checks it).
   */
  admitWorst(
    request: AdmittedRequest,
    keyHash: string,
    check: ModelCheck,
    worst: WorstCase,
  ): Admitted | Promise<Admitted> {
    return this.admitOnLease(request, keyHash, check, worst) ?? this.reserve(request, keyHash, check, worst);
  }

  /**
   * Admits the request's worst case (`worst`) for its key on the replica's admission lease, when the lease
   * covers it: local arithmetic, no Redis round trip, no promise. Writes how it was admitted on the request;
   * null sends it to reserve().
   */
  private admitOnLease(
    request: AdmittedRequest,
    keyHash: string,
    model: ModelCheck,
    worst: WorstCase,
  ): Admitted | null {
    const leases = this.deps.leases;
    if (leases === null) return null;
    const leased = leases.admit(request.ref, keyHash, model, worst.amount);
    if (leased === null) return null;
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
  private async reserve(
    request: AdmittedRequest,
    keyHash: string,
    model: ModelCheck,
    worst: WorstCase,
  ): Promise<Admitted> {
    const { deps } = this;
    const { ref, price, reservationId } = request;
    const now = deps.now();
    const periods = deps.rules.calendar.at(now);
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
    if (reservation.expired > 0) deps.events.publish("reservations.expired", { count: reservation.expired });
    if (!reservation.ok) {
      throw refusalError(reservation, worst, price, model, periods);
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
  settle(request: AdmittedRequest): void {
    const { deps } = this;
    let settlement: Settlement;
    try {
      settlement = settlementOf(request, deps.rules);
    } catch (error) {
      deps.logger.error(
        { request_id: request.requestId, err: error },
        "could not work out the charge; the reservation is released",
      );
      settlement = releaseOf(request, deps.rules);
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
  release(request: ReservedRequest, outcome: RecordOutcome, status: number): void {
    request.outcome = outcome;
    request.status = status;
    request.end(this.deps.now(), performance.now());
    this.deps.settlements.submit(releaseOf(request, this.deps.rules));
  }

  /**
   * Reserves the request's worst case. When the reply is lost (Redis stalled, the connection dropped) the
   * script may have run all the same: what it may hold is released now, not after its expiry.
   */
  private async reserveOnce(request: AdmittedRequest, input: ReserveInput): Promise<Reservation | Refusal> {
    try {
      return await this.deps.store.reserve(request.ref, input);
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

function admissionOf(request: AdmittedRequest, terms: AdmissionTerms, admitted: Admitted): Admission {
  request.admittedAt = performance.now();
  return {
    cap: terms.cap,
    worst: terms.worst,
    promptEstimate: terms.promptEstimate,
    maxCompletionTokens: terms.maxCompletionTokens,
    maxPromptTokens: terms.maxPromptTokens,
    request,
    allowedModels: admitted.allowedModels,
    rpm: admitted.rpm,
    tpm: admitted.tpm,
  };
}
