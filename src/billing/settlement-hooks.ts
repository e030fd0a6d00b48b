// What the settlement queue (settlement-queue.ts) tells of the settlements it handles: the observer's log lines
// and metrics, the lease book's mirror (lease-service.ts) and the books watch (books-watch.ts) listen.

import type { Settled, Settlement } from "../store/billing/settle-script.js";

export interface SettlementHooks {
  /** The settlement is done: written, and acknowledged by the replicas asked for. */
  settled?(settlement: Settlement, result: Settled): void;
  /**
   * A settle call was answered but no replica acknowledged its writes in time: its settlements will be sent
   * again (and may be lost to a failover until then).
   */
  unreplicated?(settlements: readonly Settlement[]): void;
  /**
   * A settlement answered before without a replica's acknowledgement was made again now: its first write was
   * lost (a failover), and this one took its place.
   */
  replayed?(settlement: Settlement): void;
  /**
   * A settlement failed five times in a way retrying does not fix (a script error, a bug of
   * ours); it is logged in full and dropped.
   */
  failed?(settlement: Settlement, error: unknown): void;
  retrying?(settlement: Settlement, error: unknown): void;
  /**
   * The queue started waiting (settlement-wait.ts): for Redis to answer, or for a replica to acknowledge; once
   * per wait, however many settlements and retries it takes.
   */
  waiting?(reason: "redis" | "replica", settlements: number): void;
  /** Nothing waits any more: every settlement that did was done (or given up). */
  recovered?(waitedMs: number): void;
  /**
   * Settlements Redis answered but no replica acknowledged within billing.lateSettlementSeconds: never sent
   * again (past that, the settle script no longer remembers them, and a copy could charge twice). They count as
   * settled by their first answer; if a failover lost that, the books watch reports the drift.
   */
  givenUp?(settlements: readonly Settlement[]): void;
  pendingChanged?(pending: number): void;
  /** A hook threw; the queue carried on. */
  hookFailed?(hook: string, error: unknown): void;
}

/**
 * Calls a hook. One that throws (a metric, a log write) is reported to `hookFailed` and otherwise ignored: it
 * must neither lose a settlement nor become an unhandled rejection that ends the process.
 */
export function callHook<Name extends Exclude<keyof SettlementHooks, "hookFailed">>(
  hooks: SettlementHooks,
  name: Name,
  ...args: Parameters<NonNullable<SettlementHooks[Name]>>
): void {
  try {
    (hooks[name] as ((...values: typeof args) => void) | undefined)?.(...args);
  } catch (error) {
    hooks.hookFailed?.(name, error);
  }
}
