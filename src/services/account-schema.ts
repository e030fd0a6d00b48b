// An account as JSON, defined once as a zod schema, as key-schema.ts defines a key: AccountView is what the
// CLI prints (`accounts … --json`), and the admin API's Account is it with its dashboard token's hint
// (admin/schemas.ts). The views' type is inferred from it (views.ts), the dashboard's from the admin API's.

import { z } from "zod";
import { BudgetWindowView } from "../core/budget-window-schema.js";
import { BILLING_MODES } from "../core/budget-windows.js";
import { deprecatedField } from "../core/deprecated-names.js";
import { isoTime } from "../core/time-schema.js";

export const AccountSharing = z
  .object({
    weight: z
      .number()
      .meta({ description: "Its share of a full model server against weight-1 accounts (1 to 1000)" }),
    priority: z
      .number()
      .nullable()
      .meta({ description: "The priority its requests carry to the model server, lower first; null: none" }),
    max_wait_ms: z
      .number()
      .nullable()
      .meta({ description: "The longest its requests wait for their turn; null: queue.maxWaitMs" }),
  })
  .meta({
    id: "AccountSharing",
    description: "How the account shares a full model server (docs/fair-sharing.md)",
  });

const thresholds = z.array(z.number()).nullable();

export const AccountView = z.object({
  id: z.string(),
  name: z.string(),
  balance: z.number().meta({ description: "Rubles" }),
  currency: z.literal("RUB"),
  created_at: isoTime,
  sharing: AccountSharing,
  billing: z.enum(BILLING_MODES).meta({ description: "How the account pays: prepaid, budgeted or both" }),
  budgets: z.array(BudgetWindowView).meta({ description: "The account's own windows, for all its keys" }),
  alert_at: thresholds.meta({
    description: "Alert thresholds of its windows in percent; null: the gateway's defaults; []: none",
  }),
  budget_alert_at: thresholds.meta(deprecatedField("alert_at")),
});
/** An account as the CLI shows it (the admin API's adds its dashboard token). */
export type AccountView = z.output<typeof AccountView>;
