// The budget gauges of keys: each key's budget as of its last settled request, set at scrape time. The
// remaining budget turns over at the period's end by itself (the whole budget remains from then on),
// without waiting for the key's next request.

import type { Gauge } from "prom-client";
import { type Micros, rublesAsFloat } from "../core/money.js";

interface KeyBudget {
  labels: [account: string, keyId: string, keyName: string];
  budget: Micros;
  spent: Micros;
  /** When the period of `spent` ends (ms): from then on the whole budget remains. */
  resetAt: number;
}

export class KeyBudgets {
  private readonly budgets = new Map<string, KeyBudget>();

  constructor(private readonly now: () => number) {}

  /** The key's budget and spent amount as the settle script returned them; a key without one has none. */
  set(
    accountId: string,
    keyId: string,
    keyName: string,
    budget: Micros | null,
    spent: Micros,
    resetAt: number,
  ) {
    if (budget === null) this.budgets.delete(keyId);
    else this.budgets.set(keyId, { labels: [accountId, keyId, keyName], budget, spent, resetAt });
  }

  /** Fills the budget gauge (collect-time). */
  collectBudget(gauge: Gauge<string>): void {
    gauge.reset();
    for (const key of this.budgets.values()) gauge.labels(...key.labels).set(rublesAsFloat(key.budget));
  }

  /** Fills the remaining-budget gauge (collect-time). */
  collectRemaining(gauge: Gauge<string>): void {
    gauge.reset();
    const now = this.now();
    for (const key of this.budgets.values()) {
      const remaining = now >= key.resetAt ? key.budget : Math.max(0, key.budget - key.spent);
      gauge.labels(...key.labels).set(rublesAsFloat(remaining));
    }
  }
}
