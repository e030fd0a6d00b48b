// What is in flight: every forwarded request from its arrival until its settlement is handed over. One
// owner for that state, read by the shutdown (wait until idle, then abort what is left), the reservation
// keeper (which reservations of running requests to keep alive) and the in-flight gauges. It holds the
// requests themselves (core/request.ts): what each of them asks of it is on the request.

import type { GatewayRequest } from "../core/request.js";

export class RequestTracker {
  private readonly running = new Set<GatewayRequest>();
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.running.size;
  }

  /** A request arrived for forwarding. */
  begin(request: GatewayRequest): void {
    this.running.add(request);
  }

  /** The request is over: refused, or its settlement handed over. Ending it twice changes nothing. */
  end(request: GatewayRequest): void {
    if (!this.running.delete(request)) return;
    if (this.running.size === 0) for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** Resolves when no request is in flight. */
  idle(): Promise<void> {
    return this.running.size === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The end of a shutdown drain: aborts every forwarded request still running. */
  abortAll(): void {
    for (const request of [...this.running]) request.exchange?.abortForShutdown();
  }

  /** The running requests that are admitted: their keys, for the per-key in-flight gauge. */
  *keys(): Iterable<GatewayRequest> {
    for (const request of this.running) if (request.admission !== null) yield request;
  }

  /**
   * The reservations of running requests (their exchange still runs, its wait for a place at the model server
   * included), for the keeper.
   */
  *reservations(): Iterable<{ reservationId: string; accountId: string; reservedAt: number }> {
    for (const { exchange, reservationId, ref, reservedAt } of this.running) {
      if (exchange !== null && reservationId !== null && ref !== null) {
        yield { reservationId, accountId: ref.accountId, reservedAt };
      }
    }
  }
}
