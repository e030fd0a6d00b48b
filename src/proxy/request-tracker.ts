// What is in flight: every forwarded request from its arrival until its settlement is handed over. One
// owner for that state, read by the shutdown (wait until idle, then abort what is left), the reservation
// keeper (which reservations of running requests to keep alive) and the in-flight gauges.

import type { RunningKey } from "../observability/gateway-metrics.js";

/** What a shutdown drain's end aborts: a forwarded request's exchange (proxy/exchange.ts). */
export interface Abortable {
  abortForShutdown(): void;
}

export interface Tracked {
  /** The forwarded request, aborted at the end of a shutdown drain; set once it is forwarded. */
  exchange: Abortable | null;
  /** The running request's reservation, while it holds one (the keeper extends it). */
  reservationId: string | null;
  accountId: string | null;
  /** When the reservation was made (ms). */
  reservedAt: number;
  /** The key, once admitted, and its max_parallel (null without one): for the per-key in-flight gauge. */
  key: RunningKey | null;
}

export class RequestTracker {
  private readonly running = new Set<Tracked>();
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.running.size;
  }

  /** A request arrived for forwarding. */
  begin(): Tracked {
    const tracked: Tracked = {
      exchange: null,
      reservationId: null,
      accountId: null,
      reservedAt: 0,
      key: null,
    };
    this.running.add(tracked);
    return tracked;
  }

  /** The request is over: refused, or its settlement handed over. Ending it twice changes nothing. */
  end(tracked: Tracked): void {
    if (!this.running.delete(tracked)) return;
    tracked.reservationId = null;
    if (this.running.size === 0) for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** Resolves when no request is in flight. */
  idle(): Promise<void> {
    return this.running.size === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The end of a shutdown drain: aborts every forwarded request still running. */
  abortAll(): void {
    for (const tracked of [...this.running]) tracked.exchange?.abortForShutdown();
  }

  /** The keys of running requests, one entry per request. */
  *keys(): Iterable<RunningKey> {
    for (const { key } of this.running) if (key !== null) yield key;
  }

  /** The reservations of running requests, for the keeper. */
  *reservations(): Iterable<{ reservationId: string; accountId: string; reservedAt: number }> {
    for (const { reservationId, accountId, reservedAt } of this.running) {
      if (reservationId !== null && accountId !== null) yield { reservationId, accountId, reservedAt };
    }
  }
}
