// Whether the settlement queue (settlement-queue.ts) is waiting — for Redis to answer, or for a replica to
// acknowledge — told once when the wait starts and once when it ends, however many retries it takes: an outage
// of an hour is two log lines, not one per settlement per retry (the metrics count every one of those).

import type { SettlementHooks } from "./settlement-hooks.js";

export type WaitReason = "redis" | "replica";

export class SettlementWait {
  private since: number | null = null;

  constructor(
    private readonly hooks: Pick<SettlementHooks, "waiting" | "recovered" | "hookFailed">,
    private readonly now: () => number,
  ) {}

  /** How many settlements wait or are being retried now, and what the first of them waits for. */
  update(troubled: number, reason: WaitReason): void {
    try {
      if (troubled > 0 && this.since === null) {
        this.since = this.now();
        this.hooks.waiting?.(reason, troubled);
      } else if (troubled === 0 && this.since !== null) {
        const waitedMs = this.now() - this.since;
        this.since = null;
        this.hooks.recovered?.(waitedMs);
      }
    } catch (error) {
      this.hooks.hookFailed?.(troubled > 0 ? "waiting" : "recovered", error);
    }
  }
}
