// One replica's lease on one key as the lease book (leases.ts) tracks it: the mirror of its amount, what its
// requests hold, its state, the key's facts it admits by, and the demand it is sized by; and the check of a
// request against those facts.

import type { KeyRef } from "../core/key-ref.js";
import type { ModelCheck } from "../core/model-check.js";
import type { Micros } from "../core/money.js";
import type { LeaseGrant } from "../store/billing/lease-script.js";

/** A lease is sized for this much of the key's recent demand on this replica... */
const HORIZON_MS = 2000;
/** ...and for at least this many of its largest recent requests. */
const MIN_REQUESTS = 8;
const MAX_REQUESTS = 4096;

/** One key's lease on this replica, as the lease book tracks it (leases.ts). */
export class KeyLease {
  leased: Micros = 0;
  held: Micros = 0;
  /** Admitted requests not yet settled (their settlement's reply not yet read). */
  open = 0;
  live = true;
  asking = false;
  facts: LeaseGrant | null = null;
  factsAt = 0;
  lastUse: number;
  /** Admissions since windowStart, and the largest hold among them and the previous window's. */
  admissions = 0;
  windowStart: number;
  largestHold: Micros = 0;
  rate = 0;
  /** Set once a killed lease has asked Redis to let go of everything (shrunk to 0 when drained). */
  closed = false;
  /** Redis no longer has it (it expired, or was emptied and deleted): nothing to give back, ever. */
  gone = false;

  constructor(
    readonly ref: KeyRef,
    readonly id: string,
    now: number,
  ) {
    this.lastUse = now;
    this.windowStart = now;
  }

  /** Enough for the key's demand on this replica over HORIZON_MS, and for MIN_REQUESTS of its largest. */
  target(): Micros {
    const requests = Math.min(
      MAX_REQUESTS,
      Math.max(MIN_REQUESTS, Math.ceil((this.rate * HORIZON_MS) / 1000)),
    );
    return this.held + requests * this.largestHold;
  }

  /** Counts an admission (or an attempt) towards the demand the lease is sized by. */
  count(worst: Micros, now: number): void {
    this.admissions++;
    if (worst > this.largestHold) this.largestHold = worst;
    const elapsed = now - this.windowStart;
    if (elapsed >= 1000) {
      this.rate = (this.admissions * 1000) / elapsed;
      this.admissions = 0;
      this.windowStart = now;
    }
  }
}

/** Whether the key's facts, as the lease last read them, admit this request (else reserve decides). */
export function usable(facts: LeaseGrant, hash: string, model: ModelCheck, now: number): boolean {
  if (facts.expiresAt !== null && now >= facts.expiresAt) return false;
  if (facts.hash !== "" && facts.hash !== hash) {
    const inGrace = now < facts.previousUntil && (facts.previousHash === hash || facts.previousHash === "*");
    if (!inGrace) return false;
  }
  if (facts.allowedModels !== null && model.kind !== "none") {
    if (model.kind !== "named" || !facts.allowedModels.includes(model.model)) return false;
  }
  return true;
}
