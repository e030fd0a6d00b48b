// The limit on what reaches the model server (upstream.maxInFlight) and the fair queue in front of it
// (docs/fair-sharing.md). An admitted request asks the gate for a place: it gets one at once while the server
// has room, else it waits in the fair queue (fair-queue.ts: accounts by weight, an account's keys in turn),
// holding its reservation and its client's connection, until a place comes free and its turn has come. A wait
// is bounded: by time (queue.maxWaitMs, or the account's or key's own shorter bound) and by the queue's size
// (queue.maxRequests, queue.maxRequestsPerAccount); beyond either the request is refused with 429
// server_busy and a Retry-After worked out from the measured drain rate. Its client leaving takes it out at
// once; a shutdown answers every waiting request 503 at once. The places are this replica's or shared by the
// replicas (upstream-slots.ts).
//
// Built only where upstream.maxInFlight is set: without it the request path never reaches this module.

import { performance } from "node:perf_hooks";
import { GatewayError } from "../../core/errors.js";
import type { GatewayRequest } from "../../core/request.js";
import type { RequestSharing } from "../../core/sharing.js";
import { DRAIN_WINDOW_MS, DrainRate } from "./drain-rate.js";
import { FairQueue, type Ticket } from "./fair-queue.js";
import type { SlotPool } from "./upstream-slots.js";

/** What the gate asks of a request that waits (the exchange, proxy/relay/exchange.ts). */
export interface Waiter {
  readonly request: GatewayRequest;
  /** Its turn has come: forward it now. */
  forward(): void;
  /** It may not wait (any longer): answer with the error; it is never forwarded. */
  refuse(error: GatewayError): void;
  /** A shutdown began: answer 503 now. */
  abortForShutdown(): void;
}

/** A request waiting for its turn. */
export class Wait {
  ticket: Ticket<Wait> | null = null;
  timer: { cancel(): void } | null = null;

  constructor(
    readonly waiter: Waiter,
    readonly weight: number,
  ) {}
}

/** What enter() decided: forward now, refused now, or waiting (leave() takes it out). */
export type Entered = "forward" | "refused" | Wait;

export interface QueueBounds {
  maxRequests: number;
  maxRequestsPerAccount: number;
}

export interface UpstreamGateDeps {
  slots: SlotPool;
  bounds: QueueBounds;
  /** Monotonic clock (ms); performance.now() by default, as the request's other times. */
  clock?(): number;
  /** Timers, injectable for tests. */
  after?(ms: number, run: () => void): { cancel(): void };
}

/** One account's queueing on this replica, for the dashboard. */
export interface AccountQueueState {
  /** Its requests waiting now. */
  waiting: number;
  /** How long the oldest of them has waited (ms); 0 when none waits. */
  oldestWaitMs: number;
}

/** The longest Retry-After the gate gives. */
const MAX_RETRY_AFTER_MS = 3_600_000;

export class UpstreamGate {
  private readonly queue = new FairQueue<Wait>();
  /** Every waiting request, oldest first (for the shutdown and the oldest wait). */
  private readonly waits = new Set<Wait>();
  private readonly drainRate = new DrainRate();
  private readonly clock: () => number;
  private readonly after: (ms: number, run: () => void) => { cancel(): void };

  constructor(private readonly deps: UpstreamGateDeps) {
    this.clock = deps.clock ?? (() => performance.now());
    this.after =
      deps.after ??
      ((ms, run) => {
        const timer = setTimeout(run, ms);
        return { cancel: () => clearTimeout(timer) };
      });
  }

  /** Requests waiting, all accounts together. */
  get waiting(): number {
    return this.queue.size;
  }

  /** Requests holding a place at the model server. */
  get inUse(): number {
    return this.deps.slots.inUse;
  }

  /** Requests waiting per account. */
  waitingAccounts(): Iterable<[accountId: string, waiting: number]> {
    return this.queue.waitingAccounts();
  }

  /**
   * An admitted request asks for a place. It is forwarded at once when the server has room and nobody waits;
   * refused (having been answered) when the queue is full; else it waits.
   */
  enter(waiter: Waiter, sharing: RequestSharing): Entered {
    const { request } = waiter;
    const now = this.clock();
    request.queuedAt = now;
    if (this.queue.size === 0 && this.deps.slots.take()) {
      this.given(request, now);
      return "forward";
    }
    const accountId = request.accountId as string;
    const { maxRequests, maxRequestsPerAccount } = this.deps.bounds;
    const full =
      this.queue.size >= maxRequests
        ? `${this.queue.size} requests already wait for it on this replica (queue.maxRequests)`
        : this.queue.waitingOf(accountId) >= maxRequestsPerAccount
          ? `${maxRequestsPerAccount} requests of this account already wait for it on this replica (queue.maxRequestsPerAccount)`
          : null;
    if (full !== null) {
      request.dequeuedAt = now;
      waiter.refuse(this.busy(`The model server is busy: ${full}.`, accountId, sharing.weight, now));
      return "refused";
    }
    const wait = new Wait(waiter, sharing.weight);
    wait.ticket = this.queue.enqueue(accountId, request.keyId as string, sharing.weight, wait);
    this.waits.add(wait);
    wait.timer = this.after(sharing.maxWaitMs, () => this.expire(wait, sharing.maxWaitMs));
    this.deps.slots.waiting(this.queue.size);
    return wait;
  }

  /** The request left before its turn (its client went away, a shutdown): out of the queue at once. */
  leave(wait: Wait): void {
    if (!this.takeOut(wait)) return;
    wait.waiter.request.dequeuedAt = this.clock();
    this.deps.slots.waiting(this.queue.size);
  }

  /** The request ended: its place goes to the next request whose turn it is. */
  release(request: GatewayRequest): void {
    if (!request.holdsSlot) return;
    request.holdsSlot = false;
    this.deps.slots.give();
    this.pump();
  }

  /** Gives free places to waiting requests, in the fair queue's order. */
  pump(): void {
    let gave = false;
    while (this.queue.size > 0 && this.deps.slots.take()) {
      const wait = this.queue.dequeue() as Wait;
      this.waits.delete(wait);
      wait.timer?.cancel();
      wait.timer = null;
      gave = true;
      this.given(wait.waiter.request, this.clock());
      try {
        wait.waiter.forward();
      } catch (error) {
        // A bug of the exchange must not stop the others' turns; it ends its request (and gives the place back).
        wait.waiter.refuse(new GatewayError("internal_error", undefined, { cause: error }));
      }
    }
    if (gave) this.deps.slots.waiting(this.queue.size);
  }

  /** A shutdown began: every waiting request is answered 503 at once (it was never forwarded). */
  drain(): void {
    for (const wait of [...this.waits]) wait.waiter.abortForShutdown();
  }

  /** The account's queueing on this replica now. */
  accountState(accountId: string): AccountQueueState {
    const now = this.clock();
    let oldestWaitMs = 0;
    for (const wait of this.waits) {
      if (wait.waiter.request.accountId !== accountId) continue;
      // Oldest first: the first found has waited longest.
      oldestWaitMs = now - wait.waiter.request.queuedAt;
      break;
    }
    return { waiting: this.queue.waitingOf(accountId), oldestWaitMs };
  }

  close(): void {
    for (const wait of this.waits) wait.timer?.cancel();
    this.deps.slots.close();
  }

  private given(request: GatewayRequest, now: number): void {
    request.dequeuedAt = now;
    request.holdsSlot = true;
    this.drainRate.record(now);
  }

  private expire(wait: Wait, maxWaitMs: number): void {
    wait.timer = null;
    if (!this.takeOut(wait)) return;
    const { request } = wait.waiter;
    const now = this.clock();
    request.dequeuedAt = now;
    this.deps.slots.waiting(this.queue.size);
    const message = `The model server is busy: this request waited ${maxWaitMs} ms for its turn, the longest it may (queue.maxWaitMs, or its account's or key's max_wait_ms).`;
    wait.waiter.refuse(this.busy(message, request.accountId as string, wait.weight, now));
  }

  private takeOut(wait: Wait): boolean {
    if (wait.ticket === null || !this.queue.remove(wait.ticket)) return false;
    this.waits.delete(wait);
    wait.timer?.cancel();
    wait.timer = null;
    return true;
  }

  /**
   * 429 server_busy, with a Retry-After of when the account's requests waiting now (and one more) will have
   * been served at the rate requests leave the queue and the account's share of it: a retry then finds its
   * turn at once. Before any rate is measured, each waiting request is counted as one second; when none has
   * left for the whole window, as one window.
   */
  private busy(message: string, accountId: string, weight: number, now: number): GatewayError {
    const measured = this.drainRate.perSecond(now) ?? 1;
    const rate = measured > 0 ? measured : 1000 / DRAIN_WINDOW_MS;
    const share = this.queue.shareOf(accountId, weight);
    const ahead = this.queue.waitingOf(accountId) + 1;
    const ms = (1000 * ahead) / (rate * share);
    const retryAfterMs = Math.min(MAX_RETRY_AFTER_MS, Math.max(1, Math.ceil(ms)));
    return new GatewayError("server_busy", `${message} Retry after the time in Retry-After.`, {
      retryAfterMs,
    });
  }
}
