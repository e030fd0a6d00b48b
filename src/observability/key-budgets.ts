// The budget gauges of keys: each budget window of a key as of its last settled request, set at scrape time,
// one series per window (labelled with its period). The remaining budget turns over at the period's end by
// itself (the whole budget remains from then on), without waiting for the key's next request.

import type { Gauge } from "prom-client";
import { remainingBudget } from "../core/budget-windows.js";
import { type Micros, rublesAsFloat } from "../core/money.js";
import type { Period } from "../core/periods.js";

/** A key's budget window as a settlement left it. */
export interface KeyWindowSample {
  period: Period;
  budget: Micros;
  spent: Micros;
  /** When the period of `spent` ends (ms): from then on the whole budget remains. */
  resetAt: number;
}

interface KeyBudget extends KeyWindowSample {
  labels: [account: string, keyId: string, keyName: string, period: Period];
}

export class KeyBudgets {
  /** By key id, its windows. */
  private readonly budgets = new Map<string, KeyBudget[]>();

  constructor(private readonly now: () => number) {}

  /** The key's windows as the settle script returned them; a key without any has no series. */
  set(accountId: string, keyId: string, keyName: string, windows: readonly KeyWindowSample[]) {
    if (windows.length === 0) this.budgets.delete(keyId);
    else {
      this.budgets.set(
        keyId,
        windows.map((window) => ({ ...window, labels: [accountId, keyId, keyName, window.period] })),
      );
    }
  }

  /** Fills the budget gauge (collect-time). */
  collectBudget(gauge: Gauge<string>): void {
    gauge.reset();
    for (const windows of this.budgets.values()) {
      for (const window of windows) gauge.labels(...window.labels).set(rublesAsFloat(window.budget));
    }
  }

  /** Fills the remaining-budget gauge (collect-time). */
  collectRemaining(gauge: Gauge<string>): void {
    gauge.reset();
    const now = this.now();
    for (const windows of this.budgets.values()) {
      for (const window of windows) {
        const remaining =
          now >= window.resetAt ? window.budget : remainingBudget(window.budget, window.spent);
        gauge.labels(...window.labels).set(rublesAsFloat(remaining));
      }
    }
  }
}
