// Usage figures as JSON, each shape defined once as a zod schema: a key's day (DailyUsage: the admin API,
// `usage --json`), and an account's overview — its totals, its days split by key and by model
// (AccountUsage). The services' types are inferred from them (views.ts, account-usage.ts), the admin API
// validates and documents with them (its OpenAPI components), and the dashboard's types come from them.
// Amounts are rubles, exact to the micro-ruble; days are calendar days in the billing time zone.

import { z } from "zod";

/** What every usage figure counts: requests, their tokens and what they cost. */
const counted = {
  requests: z.number(),
  prompt_tokens: z.number(),
  cached_tokens: z
    .number()
    .meta({ description: "Of prompt_tokens, those the model server served from its cache" }),
  completion_tokens: z.number(),
  cost: z.number().meta({ description: "Rubles" }),
};

export const UsageFigures = z.object({ ...counted, errors: z.number() }).meta({ id: "UsageFigures" });
export type UsageFigures = z.output<typeof UsageFigures>;

export const DailyUsage = z
  .object({
    date: z.string(),
    ...UsageFigures.shape,
    estimated: z.number().meta({ description: "Requests billed on estimated usage" }),
    avg_latency_ms: z.number().nullable(),
    p50_latency_ms: z
      .number()
      .nullable()
      .meta({ description: "Upper bound of the latency bucket holding the median" }),
    p95_latency_ms: z
      .number()
      .nullable()
      .meta({ description: "Upper bound of the latency bucket holding the 95th percentile" }),
  })
  .meta({ id: "DailyUsage" });
/** A key's (or an account's) usage on one day. */
export type DailyUsage = z.output<typeof DailyUsage>;

export const Usage = z
  .object({ key_id: z.string(), from: z.string(), to: z.string(), days: z.array(DailyUsage) })
  .meta({ id: "Usage" });

export const KeyUsage = UsageFigures.extend({ key_id: z.string(), name: z.string() }).meta({
  id: "KeyUsage",
});
export type KeyUsage = z.output<typeof KeyUsage>;

export const ModelUsage = z
  .object({
    model: z
      .string()
      .nullable()
      .meta({ description: "null: requests that named no model (or other models)" }),
    other: z.boolean().meta({
      description: "The models first seen on a day after that key's day already counted 60 or so others",
    }),
    ...counted,
  })
  .meta({ id: "ModelUsage" });
export type ModelUsage = z.output<typeof ModelUsage>;

export const AccountUsageDay = UsageFigures.extend({
  date: z.string(),
  by_key: z.array(KeyUsage).meta({ description: "Keys with requests that day, by spend" }),
  by_model: z.array(ModelUsage).meta({ description: "Models of that day, by spend" }),
}).meta({ id: "AccountUsageDay" });

export const AccountUsage = z
  .object({
    account_id: z.string(),
    timezone: z.string().meta({ description: "The billing time zone of days and months" }),
    from: z.string(),
    to: z.string(),
    today: z.string(),
    month: z.string().meta({ description: "This month, YYYY-MM" }),
    totals: z.object({ today: UsageFigures, month: UsageFigures, range: UsageFigures }),
    days: z.array(AccountUsageDay),
    keys: z.array(KeyUsage).meta({ description: "Keys with requests in the range, by spend" }),
    models: z.array(ModelUsage).meta({ description: "Models of the range, by spend" }),
  })
  .meta({ id: "AccountUsage" });
/** An account's overview: per day for a range, each day split by key and by model; totals; by spend. */
export type AccountUsage = z.output<typeof AccountUsage>;
