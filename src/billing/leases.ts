// Admission leases: a replica's share of a key's budget and its account's balance, reserved in Redis by
// lease-5.lua like any reservation, from which it admits requests with local arithmetic only — no Redis round
// trip before forwarding. A request whose worst case the lease does not cover (or a key without a lease, with
// rate or concurrency limits, or whose facts are not confirmed) goes the per-request way, reserve-5.lua,
// exactly as before; so the lease is an optimisation that is never needed for a decision to be right.
//
// What keeps it exact:
// - every admitted request's worst case is inside the lease (held <= leased), and the lease is inside the
//   budget and the balance by the script's checks; the local mirror of the lease's amount only ever moves by
//   the deltas the scripts report, and a request's hold leaves `held` in the same step as its settlement's
//   delta arrives, so the mirror is never above what Redis holds for the requests it covers;
// - a lease that cannot be trusted any more (a key or account change published on the change feed, the
//   feed lost, a lease call or a leased settlement whose reply was lost, a lease that expired) is killed: it
//   admits nothing more, gives back what its requests do not hold, and is deleted once they are settled; a
//   new one, under a new id, takes its place when the key is used again;
// - the key's facts a request is checked against (expiry, value hash and grace, model list) come with every
//   lease call, which the replica makes at least every FACTS_MAX_AGE_MS while it uses the lease; revocation,
//   disabling, rotation and changes arrive sooner, by the change feed (store/billing/change-feed.ts).
// docs/leases.md has the design, the sizing and the bounds.

import type { KeyRef } from "../core/key-ref.js";
import type { ModelCheck } from "../core/model-check.js";
import type { Micros } from "../core/money.js";
import type { LeaseHold } from "../core/request.js";
import type { LeaseGrant } from "../store/billing/lease-script.js";
import { KeyLease, usable } from "./key-lease.js";
import { LeaseAdmission } from "./lease-admission.js";

/** The facts a lease admits by are re-read at least this often while it is used. */
export const FACTS_MAX_AGE_MS = 2000;
/** A lease unused this long is given back. */
export const IDLE_MS = 10_000;
/** After another replica asked for lease back on a key, this replica takes none on it for this long. */
export const CONTENDED_MS = 5000;
/** After a lease call refused a key (limits, revoked, ...), none is asked for again for this long. */
const REFUSED_BACKOFF_MS = 5000;

/** What the replica needs of Redis and the clock. */
export interface LeaseDeps {
  /**
   * Sets the lease to `amount`: shrinks it to that, or — when `grow` — grows it towards that. `expected`: the
   * mirror says it holds something (one Redis no longer has was lost: lease-5.lua answers 'lost').
   */
  lease(ref: KeyRef, leaseId: string, amount: Micros, grow: boolean, expected: boolean): Promise<LeaseGrant>;
  /** Whether the change feed carries this account's changes now (subscribing when it does not yet). */
  feedReady(accountId: string): boolean;
  now(): number;
  onError(error: unknown): void;
}

export class LeaseBook {
  private readonly leases = new Map<string, KeyLease>();
  /** Killed leases still holding something in Redis. */
  private readonly dying = new Set<KeyLease>();
  /** Keys on which no lease is asked for until the time given (refused, or contended), by key id. */
  private readonly quiet = new Map<string, { accountId: string; until: number }>();
  private generation = 0;
  private sequence = 0;
  private calls = 0;
  /** Requests admitted on a lease since the start (for the metrics and the tests). */
  admitted = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly replicaId: string,
    private readonly deps: LeaseDeps,
  ) {}

  /**
   * Admits a request on the key's lease when the lease covers its worst case and the key's facts allow it;
   * null sends it the per-request way (which also makes every refusal, with its exact reason).
   */
  admit(ref: KeyRef, hash: string, model: ModelCheck, worst: Micros): LeaseAdmission | null {
    const name = ref.keyId;
    const now = this.deps.now();
    const lease = this.leases.get(name);
    if (lease === undefined || lease.ref.accountId !== ref.accountId) {
      this.start(ref, worst, now);
      return null;
    }
    lease.lastUse = now;
    const facts = lease.facts;
    if (
      facts === null ||
      now - lease.factsAt > FACTS_MAX_AGE_MS ||
      !this.deps.feedReady(ref.accountId) ||
      !usable(facts, hash, model, now)
    ) {
      this.topUp(lease, now);
      return null;
    }
    // A request that holds nothing (worst case 0: a free model) is the per-request way's to decide: what a
    // lease has left vouches only for what it covers, and one with nothing left (or a window used up, a
    // balance at 0 — which refuse even a free request) would otherwise admit it for free.
    if (worst <= 0 || lease.leased - lease.held < worst) {
      lease.count(worst, now);
      this.topUp(lease, now);
      return null;
    }
    lease.held += worst;
    lease.open++;
    this.admitted++;
    lease.count(worst, now);
    if ((lease.leased - lease.held) * 2 < lease.target()) this.topUp(lease, now);
    return new LeaseAdmission(lease, worst, `${this.replicaId}.${(this.sequence++).toString(36)}`, facts);
  }

  /**
   * A leased settlement's reply was read (result) or it was given up (null: dropped after repeated script
   * errors). The hold leaves the lease's count in the same step as the settlement's delta enters its amount.
   */
  settled(
    hold: LeaseHold,
    result: { duplicate: boolean; lease?: { delta: Micros; live: boolean } } | null,
  ): void {
    // Every hold a settlement names is one this book admitted.
    if (!(hold instanceof LeaseAdmission)) return;
    const { lease } = hold;
    lease.held -= hold.hold;
    lease.open--;
    if (result === null || result.duplicate || result.lease === undefined) {
      // Whatever the first attempt did to the lease is unknown: stop counting on it.
      this.kill(lease);
    } else {
      lease.leased += result.lease.delta;
      if (!result.lease.live) this.forget(lease);
    }
    if (!lease.live) this.closeIfDrained(lease);
  }

  /** A change published on the account's channel: a key id, '*' (the account), or 'reclaim <keyId>'. */
  changed(accountId: string, message: string): void {
    const now = this.deps.now();
    const reclaim = message.startsWith("reclaim ");
    const keyId = reclaim ? message.slice("reclaim ".length) : message;
    for (const lease of [...this.leases.values()]) {
      if (lease.ref.accountId !== accountId || (keyId !== "*" && lease.ref.keyId !== keyId)) continue;
      this.kill(lease);
      if (reclaim) this.quiet.set(lease.ref.keyId, { accountId, until: now + CONTENDED_MS });
    }
    // A change of the key or a top-up of the account changes what a refused or starved lease would get.
    if (!reclaim) {
      for (const [quietKey, { accountId: owner }] of this.quiet) {
        if (owner === accountId && (keyId === "*" || quietKey === keyId)) this.quiet.delete(quietKey);
      }
    }
  }

  /** Gives every lease back (the change feed was lost, the replica stops, or it was asked to settle all). */
  releaseAll(): void {
    for (const lease of [...this.leases.values()]) this.kill(lease);
  }

  /** Every second or so: refresh leases in use, give back idle ones, let go of drained dead ones. */
  tick(): void {
    const now = this.deps.now();
    for (const lease of [...this.leases.values()]) {
      if (now - lease.lastUse > IDLE_MS) this.kill(lease);
      else if (now - lease.factsAt >= FACTS_MAX_AGE_MS / 2) this.topUp(lease, now);
    }
    for (const lease of [...this.dying]) this.closeIfDrained(lease);
    for (const [keyId, { until }] of this.quiet) if (until <= now) this.quiet.delete(keyId);
  }

  /** Resolves when no lease call is in flight, or after `timeoutMs`. */
  async idle(timeoutMs: number): Promise<void> {
    if (this.calls === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Live leases and what they hold (for metrics and tests). */
  stats(): { leases: number; leased: Micros; held: Micros; dying: number } {
    let leased = 0;
    let held = 0;
    for (const lease of this.leases.values()) {
      leased += lease.leased;
      held += lease.held;
    }
    return { leases: this.leases.size, leased, held, dying: this.dying.size };
  }

  private start(ref: KeyRef, worst: Micros, now: number): void {
    if ((this.quiet.get(ref.keyId)?.until ?? 0) > now || !this.deps.feedReady(ref.accountId)) return;
    const lease = new KeyLease(
      ref,
      `lease:${this.replicaId}:${ref.keyId}:${(this.generation++).toString(36)}`,
      now,
    );
    this.leases.set(ref.keyId, lease);
    lease.count(worst, now);
    this.topUp(lease, now);
  }

  /** Asks for the lease's target (growing it as far as is free), which also re-reads the key's facts. */
  private topUp(lease: KeyLease, now: number): void {
    if (lease.asking || !lease.live) return;
    lease.asking = true;
    this.call(lease, lease.target(), true).then(
      (grant) => {
        lease.asking = false;
        lease.leased += grant.delta;
        if (grant.state === "lost") this.forget(lease);
        if (grant.state !== "ok") {
          this.quiet.set(lease.ref.keyId, {
            accountId: lease.ref.accountId,
            until: this.deps.now() + REFUSED_BACKOFF_MS,
          });
          this.kill(lease);
        } else if (lease.live) {
          lease.facts = grant;
          lease.factsAt = now;
        }
        if (!lease.live) this.closeIfDrained(lease);
      },
      (error: unknown) => {
        lease.asking = false;
        this.deps.onError(error);
        // The grant may have been made with its reply lost: the mirror is unknown.
        this.kill(lease);
      },
    );
  }

  private kill(lease: KeyLease): void {
    if (this.leases.get(lease.ref.keyId) === lease) this.leases.delete(lease.ref.keyId);
    if (!lease.live) return;
    lease.live = false;
    this.dying.add(lease);
    // Give back what no request holds now; the rest goes when they are settled.
    if (!lease.asking && !lease.gone) this.shrink(lease, lease.held);
  }

  /** The lease no longer exists in Redis: killed, and never called again (a call could only grow it anew). */
  private forget(lease: KeyLease): void {
    lease.gone = true;
    lease.leased = lease.held;
    this.kill(lease);
    this.closeIfDrained(lease);
  }

  /** A killed lease: gives back what its open requests do not hold, and everything once they are settled. */
  private closeIfDrained(lease: KeyLease): void {
    if (lease.asking) return; // comes back here when the call in flight ends
    if (lease.gone) {
      if (lease.open === 0) this.dying.delete(lease);
      return;
    }
    if (lease.closed) this.dying.delete(lease);
    else if (lease.open === 0) this.shrink(lease, 0);
    else if (lease.leased > lease.held) this.shrink(lease, lease.held);
  }

  private shrink(lease: KeyLease, amount: Micros): void {
    lease.asking = true;
    this.call(lease, amount, false).then(
      (grant) => {
        lease.asking = false;
        lease.leased += grant.delta;
        if (grant.state === "lost") return this.forget(lease);
        if (amount === 0 && lease.open === 0) lease.closed = true;
        if (lease.open === 0 && !lease.closed) return this.closeIfDrained(lease);
        if (lease.closed) this.dying.delete(lease);
      },
      (error: unknown) => {
        lease.asking = false;
        // Tried again on the next tick; the lease expires by itself meanwhile if Redis stays away.
        this.deps.onError(error);
      },
    );
  }

  private call(lease: KeyLease, amount: Micros, grow: boolean): Promise<LeaseGrant> {
    this.calls++;
    const done = () => {
      if (--this.calls === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
    const call = this.deps.lease(lease.ref, lease.id, amount, grow, lease.leased > 0);
    call.then(done, done);
    return call;
  }
}
