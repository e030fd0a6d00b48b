// A budget window as every surface writes it (GET /v1/key and /v1/balance, the admin API, the CLI, the
// budget.threshold webhook): the one function that builds what BudgetWindowView (budget-window-schema.ts)
// describes. Apart from the schema so that the serving path, which writes windows but never validates one,
// does not load zod.

import type { BudgetWindowView } from "./budget-window-schema.js";
import { remainingBudget } from "./budget-windows.js";
import { type Micros, rublesForJson } from "./money.js";
import type { Period } from "./periods.js";

/**
 * A window as its views show it: `spent` is its current period's (currentWindowSpent), `resetsAt` when that
 * period ends (ms).
 */
export function budgetWindowView(
  windowPeriod: Period,
  budget: Micros,
  spent: Micros,
  resetsAt: number,
): BudgetWindowView {
  return {
    period: windowPeriod,
    amount: rublesForJson(budget),
    spent: rublesForJson(spent),
    remaining: rublesForJson(remainingBudget(budget, spent)),
    resets_at: new Date(resetsAt).toISOString(),
  };
}
