// Keeps the reservations of long-running requests (long streams) alive. A reservation expires by itself
// after billing.reservationTtlSeconds so that a replica that dies mid-request cannot lock budget forever;
// a replica that is alive therefore extends, every third of that time, the reservations of its requests
// that are still running — one script call per account, whatever the number of requests. Which requests
// run is the request tracker's to say.

import { timerDelay } from "../core/timer-delay.js";
import type { BillingStore } from "../store/billing/billing-store.js";

/** The running requests' reservations (proxy/request-tracker.ts). */
export interface RunningReservations {
  reservations(): Iterable<{ reservationId: string; accountId: string; reservedAt: number }>;
}

export class ReservationKeeper {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly billing: Pick<BillingStore, "extend">,
    private readonly running: RunningReservations,
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    // A TTL of more than ~74 days would make the interval overflow Node's timers (timer-delay.ts); every
    // 24.8 days is then still well within a third of it.
    this.timer = setInterval(() => void this.extendDue(), timerDelay(this.ttlMs / 3, 1000));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Extends every reservation older than a third of the TTL; the rest still have most of theirs left. */
  async extendDue(): Promise<void> {
    const now = this.now();
    const due = new Map<string, string[]>();
    for (const { reservationId, accountId, reservedAt } of this.running.reservations()) {
      if (now - reservedAt < this.ttlMs / 3) continue;
      const ids = due.get(accountId);
      if (ids) ids.push(reservationId);
      else due.set(accountId, [reservationId]);
    }
    await Promise.all(
      [...due].map(([accountId, ids]) =>
        this.billing.extend(accountId, ids, now + this.ttlMs).catch(this.onError),
      ),
    );
  }
}
