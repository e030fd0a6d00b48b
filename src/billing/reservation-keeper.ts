// Keeps the reservations of long-running requests (long streams) alive. A reservation expires by itself
// after billing.reservationTtlSeconds so that a replica that dies mid-request cannot lock budget forever;
// a replica that is alive therefore extends, every third of that time, the reservations of its requests
// that are still running — one script call per account, whatever the number of requests.

import type { BillingStore } from "../store/billing-store.js";

interface Running {
  accountId: string;
  startedAt: number;
}

export class ReservationKeeper {
  private readonly running = new Map<string, Running>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly billing: BillingStore,
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.extendDue(), Math.max(1000, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  track(reservationId: string, accountId: string): void {
    this.running.set(reservationId, { accountId, startedAt: this.now() });
  }

  untrack(reservationId: string): void {
    this.running.delete(reservationId);
  }

  /** Extends every reservation older than a third of the TTL; the rest still have most of theirs left. */
  async extendDue(): Promise<void> {
    const now = this.now();
    const due = new Map<string, string[]>();
    for (const [id, { accountId, startedAt }] of this.running) {
      if (now - startedAt < this.ttlMs / 3) continue;
      const ids = due.get(accountId);
      if (ids) ids.push(id);
      else due.set(accountId, [id]);
    }
    await Promise.all(
      [...due].map(([accountId, ids]) =>
        this.billing.extend(accountId, ids, now + this.ttlMs).catch(this.onError),
      ),
    );
  }
}
