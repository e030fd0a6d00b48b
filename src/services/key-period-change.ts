// Changing a key's budget period, or giving it new windows, while it may be charged all the while. The spent
// amount of the new period is what the key was charged since it began. A settlement landing between reading
// that and writing it would be lost, so the script refuses a key that was charged in between, and the sum is
// read again. New windows get theirs the same way (budgets.ts), under the same check.

import type { BudgetWindow } from "../core/budget-windows.js";
import { GatewayError } from "../core/errors.js";
import type { KeyRef } from "../core/key-ref.js";
import type { Period } from "../core/periods.js";
import type { KeyChanges } from "../store/keys/key-changes.js";
import type { Stores } from "../store/stores.js";
import { monthDays, windowWrites } from "./budgets.js";

/** Reads and writes of a period change before giving up on a key that is charged all the while. */
export const PERIOD_CHANGE_ATTEMPTS = 5;

export interface PeriodChange {
  ref: KeyRef;
  /** The rest of the update, written with the period in one script call. */
  changes: KeyChanges;
  /** The audit entry of the update. */
  audit: string;
  /** Every window of the key, replacing its own; or undefined to change only its period. */
  windows: BudgetWindow[] | undefined;
  /** The new period of the key's one budget (when `windows` is undefined). */
  period: Period | undefined;
}

/**
 * Writes the change with the spent amounts of the new periods as the usage counters give them; refused with
 * 503 service_unavailable when the key was charged during each of PERIOD_CHANGE_ATTEMPTS attempts.
 */
export async function changeKeyPeriod(
  stores: Pick<Stores, "keys" | "calendar" | "now">,
  { ref, changes, audit, windows, period }: PeriodChange,
): Promise<void> {
  const zone = stores.calendar.zone;
  for (let attempt = 1; ; attempt++) {
    const now = stores.now();
    const periods = stores.calendar.at(now);
    const days = monthDays(periods, now, zone);
    const { read, dayCosts } = await stores.keys.periodSpending(ref, days);
    if (windows !== undefined) changes.windows = windowWrites(windows, periods, zone, days, dayCosts);
    else {
      const [spending] = windowWrites(
        [{ period: period as Period, budget: 0 }],
        periods,
        zone,
        days,
        dayCosts,
      );
      Object.assign(changes, { period, period_start: spending?.period_start, spent: spending?.spent });
    }
    if ((await stores.keys.update(ref, changes, audit, read)) === "ok") return;
    if (attempt === PERIOD_CHANGE_ATTEMPTS) {
      throw new GatewayError(
        "service_unavailable",
        `key ${ref.keyId} was charged during each of ${PERIOD_CHANGE_ATTEMPTS} attempts to change its period; try again`,
      );
    }
  }
}
