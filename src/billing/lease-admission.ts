// A request admitted on a lease (leases.ts admits it): what it holds of its key's lease, the marker its
// settlement carries, and the key's facts it was admitted by; and the share rule a lease is granted and given
// back by.

import type { Micros } from "../core/money.js";
import type { LeaseHold } from "../core/request.js";
import type { LeaseGrant } from "../store/billing/lease-script.js";
import type { KeyLease } from "./key-lease.js";

/** A grant takes at most this share of what is free (1/2), and a settled hold goes back under the same rule. */
export const LEASE_SHARE = 2;

/**
 * A request admitted on a lease: what it holds of the lease (what its settlement names, core/request.ts's
 * LeaseHold) and the key's facts it was admitted by.
 */
export class LeaseAdmission implements LeaseHold {
  /** A key with per-minute limits is never leased: a leased request has none to report. */
  readonly rpm = null;
  readonly tpm = null;

  constructor(
    readonly lease: KeyLease,
    readonly hold: Micros,
    readonly marker: string,
    private readonly facts: LeaseGrant,
  ) {}

  get leaseId(): string {
    return this.lease.id;
  }

  /** Read when the settlement is sent: a lease given up since takes nothing back. */
  get share(): number {
    return this.lease.live ? LEASE_SHARE : 0;
  }

  get keyName(): string {
    return this.facts.keyName;
  }

  get logBodies(): boolean {
    return this.facts.logBodies;
  }

  get allowedModels(): readonly string[] | null {
    return this.facts.allowedModels;
  }
}
