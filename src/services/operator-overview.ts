// The operator's view of every account: totals (accounts, balances, spend this month), and a page of the
// accounts that match a search, each with its spend this month and how long its oldest alert event has been
// waiting for delivery. Spend comes from the accounts' month hashes
// (one read per account, written by the settle script), so the page costs a read per account, not per key
// and day. Months and "this month" are those of the billing time zone.

import { GatewayError } from "../core/errors.js";
import { rublesForJson } from "../core/money.js";
import { dayStamp } from "../core/periods.js";
import type { AccountRecord } from "../store/records.js";
import type { Stores } from "../store/stores.js";
import type { MonthCounters } from "../store/usage/usage-store.js";

export const OVERVIEW_SORTS = ["id", "balance", "spend"] as const;
export type OverviewSort = (typeof OVERVIEW_SORTS)[number];
export const MAX_PAGE = 200;

export interface OverviewQuery {
  /** Part of the account's id or name, case-insensitive. */
  q?: string;
  sort?: OverviewSort;
  offset: number;
  limit: number;
}

export interface AccountSpend {
  account: AccountRecord;
  month: MonthCounters;
  /** When the account's oldest alert event not yet delivered to every endpoint happened (ms), or null. */
  undeliveredSince: number | null;
}

export interface Overview {
  /** YYYY-MM in the billing time zone. */
  month: string;
  timezone: string;
  totals: { accounts: number; balance: number; month_requests: number; month_cost: number };
  /** How many accounts match the search. */
  matching: number;
  offset: number;
  limit: number;
  accounts: AccountSpend[];
}

/** The stores OperatorOverviewService reads and writes. */
export type OverviewStores = Pick<Stores, "accounts" | "usage" | "events" | "calendar" | "now">;

export class OperatorOverviewService {
  constructor(private readonly stores: OverviewStores) {}

  async overview(query: OverviewQuery): Promise<Overview> {
    if (!Number.isSafeInteger(query.offset) || query.offset < 0)
      throw new GatewayError(
        "invalid_request",
        `offset must be a whole number from 0 on; got ${query.offset}`,
      );
    if (!Number.isSafeInteger(query.limit) || query.limit < 1 || query.limit > MAX_PAGE)
      throw new GatewayError(
        "invalid_request",
        `limit must be a whole number from 1 to ${MAX_PAGE}; got ${query.limit}`,
      );
    const zone = this.stores.calendar.zone;
    const month = dayStamp(this.stores.now(), zone).slice(0, 7);
    const accounts = await this.stores.accounts.list();
    const spend = await this.stores.usage.months(
      accounts.map((account) => account.id),
      month,
    );
    const rows = accounts.map((account, i) => ({ account, month: spend[i] ?? { requests: 0, cost: 0 } }));
    const needle = query.q?.trim().toLowerCase() ?? "";
    const matching = rows.filter(
      ({ account }) =>
        needle === "" ||
        account.id.toLowerCase().includes(needle) ||
        account.name.toLowerCase().includes(needle),
    );
    const sort = query.sort ?? "id";
    matching.sort((a, b) =>
      sort === "balance"
        ? b.account.balance - a.account.balance || a.account.id.localeCompare(b.account.id)
        : sort === "spend"
          ? b.month.cost - a.month.cost || a.account.id.localeCompare(b.account.id)
          : a.account.id.localeCompare(b.account.id),
    );
    return {
      month,
      timezone: zone,
      totals: {
        accounts: rows.length,
        balance: rublesForJson(rows.reduce((sum, row) => sum + row.account.balance, 0)),
        month_requests: rows.reduce((sum, row) => sum + row.month.requests, 0),
        month_cost: rublesForJson(rows.reduce((sum, row) => sum + row.month.cost, 0)),
      },
      matching: matching.length,
      offset: query.offset,
      limit: query.limit,
      accounts: await Promise.all(
        matching.slice(query.offset, query.offset + query.limit).map(async (row) => ({
          ...row,
          // Only the page's accounts: the alert deliveries are read per account.
          undeliveredSince: await this.stores.events.oldestUndeliveredAt(row.account.id),
        })),
      ),
    };
  }
}
