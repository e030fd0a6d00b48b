// What every route of the admin listener is made of — method, path, the action it takes (which the permission
// table allows to some roles: src/identity/permissions.ts), schemas, handler — and what its handler is given;
// the helpers routes share (the limit query, the key in the path). The routes themselves are in the
// *-routes.ts files beside this one, listed in routes.ts.

import type { z } from "zod";
import { GatewayError } from "../core/errors.js";
import type { PeriodCalendar } from "../core/periods.js";
import type { Identity } from "../identity/identity.js";
import type { Action } from "../identity/permissions.js";
import type { Principal } from "../identity/principal.js";
import type { AccountUsageService } from "../services/account-usage.js";
import type { AccountService } from "../services/accounts.js";
import type { AlertService } from "../services/alerts.js";
import type { BudgetService } from "../services/budgets.js";
import type { KeyService } from "../services/keys.js";
import type { OperatorOverviewService } from "../services/operator-overview.js";
import type { QueueProbe, SharingService } from "../services/sharing.js";
import type { KeyRecord } from "../store/records.js";
import type { Stores } from "../store/stores.js";
import type { CookieNames } from "./cookies.js";

export interface AdminServices {
  accounts: AccountService;
  /** An account's billing mode and own budget windows. */
  budgets: BudgetService;
  keys: KeyService;
  alerts: AlertService;
  usage: AccountUsageService;
  overview: OperatorOverviewService;
  identity: Identity;
  calendar: PeriodCalendar;
  now: () => number;
  /** An account's balance changed through the admin API (for the metrics' balance gauge). */
  balanceChanged?: (accountId: string, balance: number) => void;
  /** How accounts and keys share a full model server; the replica's gate to it, where it has a limit. */
  sharing: SharingService;
  queue?: QueueProbe | null;
  /** What an account's queueing is read from. */
  stores: Pick<Stores, "accounts" | "keys" | "requestLog">;
}

/** What a handler may know of, and say through, the HTTP exchange beyond its JSON. */
export interface Exchange {
  cookies: ReadonlyMap<string, string>;
  cookieNames: CookieNames;
  userAgent: string;
  /** The client's address (see TransportSecurity.clientAddress). */
  address: string;
  /** The dashboard's origin, e.g. https://gateway.example.com: the base of links and redirects. */
  origin: string;
  setCookie(value: string): void;
}

export interface Call {
  /** Who calls; for a public route without a valid credential, nobody (credential kind "none"). */
  principal: Principal;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
  services: AdminServices;
  http: Exchange;
}

/** What a route answering 302 returns: where to send the browser. */
export interface Redirect {
  location: string;
}

export interface Route {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** OpenAPI path template, e.g. /admin/v1/accounts/{accountId}. */
  path: string;
  operationId: string;
  summary: string;
  /** What the route does, as the permission table knows it: who may call it follows from the table. */
  action: Action;
  query?: z.ZodType;
  body?: z.ZodType;
  /** 302: the handler returns a Redirect (the sign-in flow's browser navigations). */
  status: 200 | 201 | 302;
  response: z.ZodType;
  /**
   * The route answers CSV (a download named by this function) rather than JSON: its handler returns the text,
   * and `response` describes it.
   */
  csv?: (call: Call) => string;
  handle(call: Call): Promise<unknown>;
}

export const DEFAULT_LIMIT = 100;

export function limitOf(query: Record<string, string | undefined>): number {
  return query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
}

/** The key in the path, which must belong to the account in the path. */
export async function keyOf(call: Call): Promise<KeyRecord> {
  const key = await call.services.keys.show(call.params.keyId);
  if (key.accountId !== call.params.accountId) {
    throw new GatewayError(
      "key_not_found",
      `account ${call.params.accountId} has no key ${call.params.keyId}`,
    );
  }
  return key;
}

export const ACCOUNT = "/admin/v1/accounts/{accountId}";
export const KEY = `${ACCOUNT}/keys/{keyId}`;
