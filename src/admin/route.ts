// What every admin API route is made of — method, path, who may call it, schemas, handler — and what its
// handler is given; the helpers routes share (the limit query, the key in the path) and the access rule the
// router applies. The routes themselves are in account-routes.ts, key-routes.ts and alert-routes.ts.

import type { z } from "zod";
import { GatewayError } from "../core/errors.js";
import type { PeriodCalendar } from "../core/periods.js";
import type { AccountUsageService } from "../services/account-usage.js";
import type { AccountService } from "../services/accounts.js";
import type { AlertService } from "../services/alerts.js";
import type { KeyService } from "../services/keys.js";
import type { OperatorOverviewService } from "../services/operator-overview.js";
import type { KeyRecord } from "../store/records.js";
import { assertAdmin, assertMayAccess, type Principal } from "./credentials.js";

export interface AdminServices {
  accounts: AccountService;
  keys: KeyService;
  alerts: AlertService;
  usage: AccountUsageService;
  overview: OperatorOverviewService;
  calendar: PeriodCalendar;
  now: () => number;
  /** An account's balance changed through the admin API (for the metrics' balance gauge). */
  balanceChanged?: (accountId: string, balance: number) => void;
}

export interface Call {
  principal: Principal;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
  services: AdminServices;
}

interface RouteShape {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** OpenAPI path template, e.g. /admin/v1/accounts/{accountId}. */
  path: string;
  operationId: string;
  summary: string;
  query?: z.ZodType;
  body?: z.ZodType;
  status: 200 | 201;
  response: z.ZodType;
  /**
   * The route answers CSV (a download named by this function) rather than JSON: its handler returns the text,
   * and `response` describes it.
   */
  csv?: (call: Call) => string;
  handle(call: Call): Promise<unknown>;
}

/** Who may call a route. */
type Access =
  /**
   * The admin token only. `forbiddenAction` completes the refusal of an account token: "Only the operator's
   * admin token may read the audit log of every account."
   */
  | { access: "admin"; forbiddenAction: string }
  /** The admin token, or the token of the account in the path. */
  | { access: "account" };

export type Route = RouteShape & Access;

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

/** Applies a route's access rule for a principal and the path's parameters. */
export function authorize(route: Route, principal: Principal, params: Record<string, string>): void {
  if (route.access === "admin") assertAdmin(principal, route.forbiddenAction);
  if (params.accountId !== undefined) assertMayAccess(principal, params.accountId);
}
