// The model server's places (upstream.maxInFlight), as the upstream gate takes and gives them back: counted by
// this replica alone, or shared by every replica through Redis (upstream.sharedInFlight).
//
// Shared, each replica holds a count of places in Redis (syncUpstreamSlots-2.lua) and uses only those: a
// place it holds and no longer needs goes back at its next sync, and one its own next request can use is
// passed on locally, without a round trip, unless the replica holds more than its part (other replicas' requests
// are waiting too). A replica that cannot run a waiting request asks for more at once and then every POLL_MS
// while requests wait; it sends its count again every SYNC_EVERY_MS, and a count not sent again within
// SLOT_TTL_MS expires — so a replica that dies gives its places back within SLOT_TTL_MS, and the shared count
// never overstates what runs by more than the places of replicas that died in the last SLOT_TTL_MS.

import type { SlotCount, SlotSync } from "../../store/sharing/upstream-slots-store.js";

/** How long a replica's count lives in Redis unless sent again. */
export const SLOT_TTL_MS = 15_000;
/** How often a replica holding places sends its count again. */
export const SYNC_EVERY_MS = 5000;
/** How often a replica with waiting requests asks again for places. */
export const POLL_MS = 25;

export interface SlotPool {
  /** Takes a place if one is free now. */
  take(): boolean;
  /** A request gives its place back. */
  give(): void;
  /** How many requests wait for a place (the gate tells the pool, which may ask Redis for more). */
  waiting(count: number): void;
  /** Places in use now. */
  readonly inUse: number;
  close(): void;
}

/** This replica's places alone. */
export class LocalSlots implements SlotPool {
  inUse = 0;

  constructor(private readonly limit: number) {}

  take(): boolean {
    if (this.inUse >= this.limit) return false;
    this.inUse++;
    return true;
  }

  give(): void {
    if (this.inUse > 0) this.inUse--;
  }

  waiting(): void {}

  close(): void {}
}

export interface SharedSlotsDeps {
  store: { sync(input: SlotSync): Promise<SlotCount> };
  limit: number;
  /** Wall clock (ms): expiries in Redis are judged by it. */
  now(): number;
  /** Places came free: the gate gives them to waiting requests. */
  freed(): void;
  onError(error: unknown): void;
  /** Timers, injectable for tests. */
  after?(ms: number, run: () => void): { cancel(): void };
}

/** The places every replica shares through Redis. */
export class SharedSlots implements SlotPool {
  inUse = 0;
  /** Places Redis counts for this replica, as of the last sync. */
  private held = 0;
  /** This replica's part of the limit, as of the last sync. */
  private part: number;
  private queued = 0;
  /** While a sync is on its way: what it said was in use, beyond which no place may be taken until it answers. */
  private inFlightFloor: number | null = null;
  private again = false;
  private closed = false;
  private poll: { cancel(): void } | null = null;
  private readonly renew: { cancel(): void };
  private readonly after: (ms: number, run: () => void) => { cancel(): void };

  constructor(private readonly deps: SharedSlotsDeps) {
    this.part = deps.limit;
    this.after =
      deps.after ??
      ((ms, run) => {
        const timer = setTimeout(run, ms);
        timer.unref();
        return { cancel: () => clearTimeout(timer) };
      });
    const renew = () => {
      if (this.closed) return;
      if (this.held > 0 || this.queued > 0) this.sync();
      handle = this.after(SYNC_EVERY_MS, renew);
    };
    let handle = this.after(SYNC_EVERY_MS, renew);
    this.renew = { cancel: () => handle.cancel() };
  }

  take(): boolean {
    const usable = this.inFlightFloor === null ? this.held : Math.min(this.held, this.inFlightFloor);
    if (this.inUse >= usable) return false;
    this.inUse++;
    return true;
  }

  give(): void {
    if (this.inUse > 0) this.inUse--;
    // Passed on locally (the gate takes it for a waiting request) while within its part; else it goes back.
    if (this.queued === 0 || this.held > this.part) this.sync();
  }

  waiting(count: number): void {
    this.queued = count;
    if (count > this.held - this.inUse) {
      // More wait than it holds free places for: ask Redis for more.
      this.sync();
    } else if (count === 0 && this.poll !== null) {
      this.poll.cancel();
      this.poll = null;
    }
  }

  /** Stops syncing; a replica that stops gracefully gives what it holds back at once, not at the expiry. */
  close(): void {
    if (this.held > this.inUse || this.queued > 0) {
      this.queued = 0;
      this.sync();
    }
    this.closed = true;
    this.renew.cancel();
    this.poll?.cancel();
  }

  /** Sends the count to Redis, one sync at a time; one asked for meanwhile follows the answer. */
  private sync(): void {
    if (this.closed) return;
    if (this.inFlightFloor !== null) {
      this.again = true;
      return;
    }
    this.again = false;
    const inUse = this.inUse;
    this.inFlightFloor = inUse;
    const now = this.deps.now();
    this.deps.store
      .sync({ now, expiresAt: now + SLOT_TTL_MS, limit: this.deps.limit, inUse, waiting: this.queued })
      .then(
        (count) => {
          this.held = count.held;
          this.part = count.part;
        },
        (error: unknown) => this.deps.onError(error),
      )
      .finally(() => {
        this.inFlightFloor = null;
        if (this.inUse < this.held && this.queued > 0) this.deps.freed();
        if (this.closed) return;
        if (this.again || this.held > this.inUse + this.queued) this.sync();
        else if (this.queued > this.held - this.inUse) this.pollLater();
      });
  }

  private pollLater(): void {
    if (this.poll !== null) return;
    this.poll = this.after(POLL_MS, () => {
      this.poll = null;
      if (this.queued > 0) this.sync();
    });
  }
}
