// A budget window as JSON, defined once as a zod schema: every surface that shows one — GET /v1/key and
// /v1/balance, the admin API's keys and accounts, the CLI's --json, the budget.threshold webhook, the
// dashboard (its types) — writes it with budgetWindowView (budget-window-view.ts) and describes it with BudgetWindowView, and the
// OpenAPI component comes from the same definition. It sits in core, below every layer that shows a window
// (alerts among them). Names a window had before are in deprecated-names.ts.

import { z } from "zod";
import { PERIODS } from "./periods.js";
import { isoTime } from "./time-schema.js";

/** A budget's period (request bodies take it too). */
export const period = z.enum(PERIODS);

export const BudgetWindowView = z
  .object({
    period,
    amount: z.number().meta({ description: "Rubles per period" }),
    spent: z.number().meta({ description: "Rubles spent in the current period" }),
    remaining: z.number().meta({ description: "amount − spent, never below 0" }),
    resets_at: isoTime.meta({ description: "When the current period ends (billing time zone)" }),
  })
  .meta({ id: "BudgetWindow", description: "A budget window: so much per day, week or month" });

/** A budget window in every view of it. */
export type BudgetWindowView = z.output<typeof BudgetWindowView>;
