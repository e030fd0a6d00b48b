// The admin API's shapes for usage: the queries of an account's overview (whose figures are the services'
// schemas, services/usage-schema.ts), a page of a key's kept requests, and the operator's overview of every
// account. Kept apart from schemas.ts, with the same conventions: amounts in rubles, exact to the
// micro-ruble; days and months in the billing time zone.

import { z } from "zod";
import { isoTime } from "../core/time-schema.js";
import { MAX_PAGE, OVERVIEW_SORTS } from "../services/operator-overview.js";
import { STATUS_FILTERS } from "../services/request-log-query.js";
import { RequestLogEntry } from "../store/usage/request-log-schema.js";
import { Account } from "./schemas.js";

const day = (what: string) =>
  z
    .string()
    .optional()
    .meta({ description: `${what}, YYYY-MM-DD in the billing time zone` });
const whole = (what: string) =>
  z.string().regex(/^\d+$/, "must be a whole number").optional().meta({ description: what });

export const AccountUsageQuery = z.strictObject({
  from: day("First day (default: the first of to's month)"),
  to: day("Last day (default: today)"),
});

export const RequestLogQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^[1-9]\d*$/, "must be a whole number from 1 on")
    .optional()
    .meta({ description: "How many, newest first (default 100, at most 1000)" }),
  offset: whole("How many matching requests to skip (default 0)"),
  status: z
    .string()
    .optional()
    .meta({ description: `${STATUS_FILTERS.join(", ")}, or one status code such as 429` }),
  model: z.string().optional().meta({ description: "Exact model name; empty for requests without one" }),
  from: day("First day"),
  to: day("Last day"),
  request_id: z.string().optional().meta({ description: "Part of the request id, case-insensitive" }),
});

export const RequestPage = z
  .object({
    key_id: z.string(),
    requests: z.array(RequestLogEntry),
    total: z.number().meta({ description: "Kept requests that pass the filter" }),
    offset: z.number(),
    limit: z.number(),
    models: z.array(z.string().nullable()).meta({ description: "Models of the key's kept requests" }),
  })
  .meta({ id: "RequestPage" });

export const OverviewQuery = z.strictObject({
  q: z.string().optional().meta({ description: "Part of the account's id or name, case-insensitive" }),
  sort: z
    .enum(OVERVIEW_SORTS)
    .optional()
    .meta({ description: "id (default), balance or spend (this month)" }),
  offset: whole("How many matching accounts to skip (default 0)"),
  limit: z
    .string()
    .regex(/^[1-9]\d*$/, "must be a whole number from 1 on")
    .optional()
    .meta({ description: `Accounts per page (default 50, at most ${MAX_PAGE})` }),
});

export const Overview = z
  .object({
    month: z.string(),
    timezone: z.string(),
    totals: z.object({
      accounts: z.number(),
      balance: z.number().meta({ description: "Rubles: the sum of every account's balance" }),
      month_requests: z.number(),
      month_cost: z.number().meta({ description: "Rubles spent this month by every account" }),
    }),
    matching: z.number().meta({ description: "Accounts that match the search" }),
    offset: z.number(),
    limit: z.number(),
    accounts: z.array(
      Account.extend({
        month: z.object({ requests: z.number(), cost: z.number().meta({ description: "Rubles" }) }),
        undelivered_since: isoTime.nullable().meta({
          description:
            "When its oldest alert event not yet delivered to every endpoint happened; null: none waiting",
        }),
      }),
    ),
  })
  .meta({ id: "Overview" });
