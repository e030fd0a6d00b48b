// The admin API's request and response shapes, as zod schemas: the router validates requests with them, and
// the OpenAPI document is generated from them, so the two cannot drift apart. Values are checked in depth
// by the service layer (the same rules as the CLI); these schemas refuse unknown fields and wrong types.

import { z } from "zod";
import { period } from "../core/budget-window-schema.js";
import { BILLING_MODES } from "../core/budget-windows.js";
import { AccountView } from "../services/account-schema.js";
import { Key } from "../services/key-schema.js";
import { AuditEntry } from "../store/audit/audit-schema.js";

const amount = z.union([z.number(), z.string()]).meta({
  description: "Rubles, a number or a decimal string with at most six decimals",
  examples: [1000, "12.5"],
});
const limit = (what: string) =>
  z
    .number()
    .nullable()
    .optional()
    .meta({ description: `${what}: a whole number from 1 on; omit to keep, null for no limit` });
const limitFields = {
  rpm: limit("Requests per minute"),
  tpm: limit("Tokens (prompt + completion) per minute"),
  max_parallel: limit("Requests in flight at once"),
};

const alertAt = z.array(z.number()).nullable().meta({
  description:
    "Budget alert thresholds, whole percents of the budget from 1 to 100 (e.g. [50, 80, 100]); [] for none; null for the gateway's defaults",
});

const windowsBody = z.array(z.strictObject({ period, amount })).meta({
  description:
    'Budget windows: at most three, each period (day, week, month) at most once, e.g. [{"period":"day","amount":100},{"period":"month","amount":2000}]; a request must fit in every one',
});

export const AccountIdParam = z.string().meta({ description: "Account id", examples: ["acme"] });
export const KeyIdParam = z.string().meta({ description: "Key id", examples: ["key_5m2x8q0c7w1r9t4z6b3n"] });

export const CreateAccountBody = z
  .strictObject({
    id: z.string().meta({ description: "1 to 64 lowercase letters, digits, '-' and '_'" }),
    name: z.string().optional(),
    balance: amount.optional(),
  })
  .meta({ id: "CreateAccount", examples: [{ id: "acme", name: "Acme Corp", balance: 5000 }] });

export const AccountBudgetsBody = z
  .strictObject({
    billing: z.enum(BILLING_MODES).optional().meta({
      description:
        "prepaid: the balance limits the keys; budgeted: the windows alone do (no balance needed or charged); both. Omit to keep (budgets given to a prepaid account make it both)",
    }),
    budgets: windowsBody
      .optional()
      .meta({ description: "The account's windows, shared by all its keys; omit to keep" }),
    alert_at: alertAt.optional(),
  })
  .meta({
    id: "AccountBudgetsChange",
    examples: [
      {
        billing: "budgeted",
        budgets: [
          { period: "day", amount: 10000 },
          { period: "month", amount: 300000 },
        ],
        alert_at: [50, 80, 100],
      },
    ],
  });

export const TopUpBody = z.strictObject({ amount }).meta({ id: "TopUp", examples: [{ amount: 1000 }] });

const optionalWhole = (description: string) => z.number().nullable().optional().meta({ description });

export const AccountSharingBody = z
  .strictObject({
    weight: optionalWhole("1 to 1000; omit to keep, null for the default (1)"),
    priority: optionalWhole("-1000 to 1000, lower first; omit to keep, null for none"),
    max_wait_ms: optionalWhole("1 to 3600000; omit to keep, null for queue.maxWaitMs"),
  })
  .meta({ id: "AccountSharingChange", examples: [{ weight: 3, priority: 10, max_wait_ms: 5000 }] });

export const KeySharingBody = z
  .strictObject({
    priority: optionalWhole(
      "-1000 to 1000, lower first, from the account's priority on; omit to keep, null for the account's",
    ),
    max_wait_ms: optionalWhole("1 to 3600000; omit to keep, null for the account's"),
  })
  .meta({ id: "KeySharingChange", examples: [{ priority: 20, max_wait_ms: null }] });

export const CreateKeyBody = z
  .strictObject({
    name: z.string(),
    budget: amount
      .nullable()
      .optional()
      .meta({ description: "Rubles per period; omit or null for no budget" }),
    period: period.optional().meta({ description: "Budget period (needs a budget); month by default" }),
    budgets: windowsBody
      .optional()
      .meta({ description: "Several budget windows, instead of budget and period" }),
    ttl: z
      .string()
      .optional()
      .meta({ description: "Lifetime: 15m, 2h, 30d, 1w, … (at least 15 minutes) or never" }),
    models: z
      .array(z.string())
      .nullable()
      .optional()
      .meta({ description: "Allowed models; omit or null for all" }),
    log_bodies: z.boolean().optional().meta({ description: "Whether bodies may be logged (default true)" }),
    ...limitFields,
    alert_at: alertAt.optional(),
  })
  .meta({
    id: "CreateKey",
    examples: [
      {
        name: "production",
        budgets: [
          { period: "day", amount: 100 },
          { period: "month", amount: 2000 },
        ],
        ttl: "90d",
        models: ["llama-3.1-8b-instruct"],
        rpm: 60,
        max_parallel: 4,
        alert_at: [80, 100],
      },
    ],
  });

export const UpdateKeyBody = z
  .strictObject({
    name: z.string().optional(),
    budget: amount.nullable().optional().meta({ description: "New budget; null removes it" }),
    period: period.optional(),
    budgets: windowsBody.nullable().optional().meta({
      description:
        "Every budget window, replacing the key's (not with budget or period); [] or null for none",
    }),
    models: z
      .array(z.string())
      .nullable()
      .optional()
      .meta({ description: "New model list; null allows all" }),
    log_bodies: z.boolean().optional(),
    ttl: z
      .string()
      .optional()
      .meta({ description: "A new lifetime counted from now (15m, 2h, 30d, …) or never" }),
    ...limitFields,
    alert_at: alertAt.optional(),
  })
  .meta({
    id: "UpdateKey",
    examples: [{ budgets: [{ period: "month", amount: 1500 }], rpm: null, log_bodies: false }],
  });

export const RotateKeyBody = z
  .strictObject({
    grace: z.string().optional().meta({
      description:
        "How long the old value keeps working: 0 (the default), or a duration such as 30m, 24h, 7d; at most 7 days",
    }),
  })
  .meta({ id: "RotateKey", examples: [{ grace: "24h" }] });

export const UsageQuery = z.strictObject({
  from: z
    .string()
    .optional()
    .meta({ description: "First day, YYYY-MM-DD in the billing time zone (default: 29 days before to)" }),
  to: z.string().optional().meta({ description: "Last day, YYYY-MM-DD (default: today)" }),
});

export const LimitQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^[1-9]\d*$/, "must be a whole number from 1 on")
    .optional()
    .meta({ description: "How many, newest first (default 100, at most 1000)" }),
});

export const AuditQuery = z.strictObject({
  account: z.string().optional().meta({ description: "Only this account's entries" }),
  limit: z
    .string()
    .regex(/^[1-9]\d*$/, "must be a whole number from 1 on")
    .optional()
    .meta({ description: "How many, newest first (default 100, at most 1000)" }),
});

export const Account = AccountView.extend({
  token: z
    .object({ hint: z.string() })
    .nullable()
    .meta({ description: "The account's dashboard token (its last characters), or null" }),
}).meta({ id: "Account" });

// A key's own shape is defined with the other audiences' views of it (services/key-schema.ts): the public
// listener and the CLI show keys too.
export { Key };

export const CreatedKey = Key.extend({
  key: z.string().meta({ description: "The key value: shown this once, never again" }),
}).meta({ id: "CreatedKey" });

export const AccountQueue = z
  .object({
    limit: z.number().nullable().meta({ description: "upstream.maxInFlight; null: no limit, nothing waits" }),
    shared: z
      .boolean()
      .meta({ description: "Whether the replicas share the limit (upstream.sharedInFlight)" }),
    replica: z
      .object({
        in_use: z.number(),
        waiting: z.number(),
        account_waiting: z.number(),
        oldest_wait_ms: z.number(),
      })
      .nullable()
      .meta({
        description: "The replica that answers, now: its places in use, what waits, the account's part",
      }),
    recent: z
      .object({
        requests: z.number(),
        waited: z.number(),
        p50_queue_ms: z.number().nullable(),
        p95_queue_ms: z.number().nullable(),
        max_queue_ms: z.number().nullable(),
        server_busy: z.number(),
      })
      .meta({
        description:
          "The latest requests of each of the account's keys that asked for a place at the model server, on any replica: how long they waited, how many were refused with server_busy",
      }),
  })
  .meta({ id: "AccountQueue" });

export const AuditLog = z.object({ entries: z.array(AuditEntry) }).meta({ id: "AuditLog" });

export { Me } from "./people-schemas.js";

export const ErrorBody = z
  .object({ error: z.object({ message: z.string(), type: z.string(), code: z.string() }) })
  .meta({ id: "Error" });
