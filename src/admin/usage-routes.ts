// The admin API's routes about usage: an account's overview and its CSV exports (daily usage per key and
// model, kept requests), a page of a key's kept requests with filters, and the operator's overview of every
// account. The dashboard's account, key and operator pages read these, and show their figures as they are.

import { z } from "zod";
import { rublesForJson } from "../core/money.js";
import { requestsCsv, usageCsv } from "../services/usage-csv.js";
import { AccountUsage } from "../services/usage-schema.js";
import { ACCOUNT, KEY, keyOf, limitOf, type Route } from "./route.js";
import * as U from "./usage-schemas.js";
import { adminAccountView } from "./views.js";

const CSV = z
  .string()
  .meta({ description: "CSV (RFC 4180, UTF-8 with a byte order mark), a header line first" });

/** A download's name: the account, what, and the range; ids are [A-Za-z0-9_.-] already. */
function csvName(what: string) {
  return ({ params, query }: { params: Record<string, string>; query: Record<string, string | undefined> }) =>
    `${params.accountId}-${what}${query.from ? `-from-${query.from}` : ""}${query.to ? `-to-${query.to}` : ""}.csv`;
}

const DEFAULT_OVERVIEW_PAGE = 50;

export const USAGE_ROUTES: readonly Route[] = [
  {
    method: "GET",
    path: `${ACCOUNT}/usage`,
    operationId: "accountUsage",
    summary:
      "An account's usage per day (this month by default), by key and by model, with totals for today, this month and the range",
    action: "usage.read",
    query: U.AccountUsageQuery,
    status: 200,
    response: AccountUsage,
    async handle({ params, query, services }) {
      return services.usage.report(params.accountId, query.from, query.to);
    },
  },
  {
    method: "GET",
    path: `${ACCOUNT}/usage.csv`,
    operationId: "accountUsageCsv",
    summary:
      "An account's daily usage as CSV, one line per day, key and model: date, key_id, key_name, model, requests, prompt_tokens, completion_tokens, cost_rub",
    action: "usage.read",
    query: U.AccountUsageQuery,
    status: 200,
    response: CSV,
    csv: csvName("usage"),
    async handle({ params, query, services }) {
      return usageCsv(await services.usage.usageTable(params.accountId, query.from, query.to));
    },
  },
  {
    method: "GET",
    path: `${ACCOUNT}/requests.csv`,
    operationId: "accountRequestsCsv",
    summary:
      "The kept requests of an account's keys (each key's latest requestLog.maxPerKey) in a range of days as CSV, newest first",
    action: "usage.read",
    query: U.AccountUsageQuery,
    status: 200,
    response: CSV,
    csv: csvName("requests"),
    async handle({ params, query, services }) {
      return requestsCsv(await services.usage.requests(params.accountId, query.from, query.to));
    },
  },
  {
    method: "GET",
    path: `${KEY}/requests`,
    operationId: "keyRequests",
    summary:
      "A key's kept requests, newest first, filtered by status, model, days and request id, a page at a time (bodies only while its log_bodies is on)",
    action: "usage.read",
    query: U.RequestLogQuery,
    status: 200,
    response: U.RequestPage,
    async handle(call) {
      const key = await keyOf(call);
      const { status, model, from, to, request_id: requestId, offset } = call.query;
      const page = await call.services.keys.requestPage(
        key.id,
        {
          ...(status !== undefined && { status }),
          ...(model !== undefined && { model }),
          ...(from !== undefined && { from }),
          ...(to !== undefined && { to }),
          ...(requestId !== undefined && { requestId }),
        },
        offset === undefined ? 0 : Number(offset),
        limitOf(call.query),
      );
      return { key_id: key.id, ...page };
    },
  },
  {
    method: "GET",
    path: "/admin/v1/overview",
    operationId: "operatorOverview",
    summary:
      "Every account at a glance (operators): totals, and a page of the accounts that match a search with their spend this month",
    action: "overview.read",
    query: U.OverviewQuery,
    status: 200,
    response: U.Overview,
    async handle({ query, services }) {
      const overview = await services.overview.overview({
        ...(query.q !== undefined && { q: query.q }),
        ...(query.sort !== undefined && { sort: query.sort as "id" | "balance" | "spend" }),
        offset: query.offset === undefined ? 0 : Number(query.offset),
        limit: query.limit === undefined ? DEFAULT_OVERVIEW_PAGE : Number(query.limit),
      });
      return {
        ...overview,
        accounts: overview.accounts.map(({ account, month, undeliveredSince }) => ({
          ...adminAccountView(account, services),
          month: { requests: month.requests, cost: rublesForJson(month.cost) },
          undelivered_since: undeliveredSince === null ? null : new Date(undeliveredSince).toISOString(),
        })),
      };
    },
  },
];
