// Every route of the admin API: method, path, who may call it, its request and response schemas and its
// handler. The router serves this table and the OpenAPI document is generated from it.

import type { z } from "zod";
import type { PeriodCalendar } from "../billing/periods.js";
import { GatewayError } from "../errors.js";
import type { AccountService } from "../services/accounts.js";
import type { AlertService } from "../services/alerts.js";
import type { KeyService } from "../services/keys.js";
import type { KeyRecord } from "../store/records.js";
import { ALERT_ROUTES } from "./alert-routes.js";
import { actorOf, assertAdmin, assertMayAccess, type Principal } from "./credentials.js";
import * as S from "./schemas.js";
import { adminAccountView, adminKeyView } from "./views.js";

export interface AdminServices {
  accounts: AccountService;
  keys: KeyService;
  alerts: AlertService;
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

const DEFAULT_LIMIT = 100;

function limitOf(query: Record<string, string | undefined>): number {
  return query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
}

/** The key in the path, which must belong to the account in the path. */
async function keyOf(call: Call): Promise<KeyRecord> {
  const key = await call.services.keys.show(call.params.keyId);
  if (key.accountId !== call.params.accountId) {
    throw new GatewayError(
      "key_not_found",
      `account ${call.params.accountId} has no key ${call.params.keyId}`,
    );
  }
  return key;
}

const ACCOUNT = "/admin/v1/accounts/{accountId}";
const KEY = `${ACCOUNT}/keys/{keyId}`;

export const ROUTES: readonly Route[] = [
  {
    method: "GET",
    path: "/admin/v1/me",
    operationId: "whoAmI",
    summary: "Who the credential belongs to: the operator, or one account",
    access: "account",
    status: 200,
    response: S.Me,
    async handle({ principal }) {
      return { role: principal.role, account_id: principal.role === "account" ? principal.accountId : null };
    },
  },
  {
    method: "GET",
    path: "/admin/v1/accounts",
    operationId: "listAccounts",
    summary: "All accounts (an account token sees only its own)",
    access: "account",
    status: 200,
    response: S.Account.array(),
    async handle({ principal, services }) {
      const accounts =
        principal.role === "admin"
          ? await services.accounts.list()
          : [await services.accounts.show(principal.accountId)];
      return accounts.map(adminAccountView);
    },
  },
  {
    method: "POST",
    path: "/admin/v1/accounts",
    operationId: "createAccount",
    summary: "Create an account (admin token only)",
    access: "admin",
    forbiddenAction: "create an account",
    body: S.CreateAccountBody,
    status: 201,
    response: S.Account,
    async handle({ principal, body, services }) {
      const input = body as z.infer<typeof S.CreateAccountBody>;
      return adminAccountView(await services.accounts.create(input, actorOf(principal)));
    },
  },
  {
    method: "GET",
    path: ACCOUNT,
    operationId: "showAccount",
    summary: "An account and its balance",
    access: "account",
    status: 200,
    response: S.Account,
    async handle({ params, services }) {
      return adminAccountView(await services.accounts.show(params.accountId));
    },
  },
  {
    method: "POST",
    path: `${ACCOUNT}/topups`,
    operationId: "topUpAccount",
    summary: "Add rubles to an account's balance (admin token only)",
    access: "admin",
    forbiddenAction: "top up an account",
    body: S.TopUpBody,
    status: 200,
    response: S.Account,
    async handle({ principal, params, body, services }) {
      const { amount } = body as z.infer<typeof S.TopUpBody>;
      const account = await services.accounts.topUp(params.accountId, amount, actorOf(principal));
      services.balanceChanged?.(account.id, account.balance);
      return adminAccountView(account);
    },
  },
  {
    method: "GET",
    path: `${ACCOUNT}/audit`,
    operationId: "accountAudit",
    summary: "The account's audit log, newest first",
    access: "account",
    query: S.LimitQuery,
    status: 200,
    response: S.AuditLog,
    async handle({ params, query, services }) {
      return { entries: await services.accounts.audit(params.accountId, limitOf(query)) };
    },
  },
  {
    method: "GET",
    path: "/admin/v1/audit",
    operationId: "audit",
    summary: "The audit log of every account, newest first (admin token only)",
    access: "admin",
    forbiddenAction: "read the audit log of every account",
    query: S.AuditQuery,
    status: 200,
    response: S.AuditLog,
    async handle({ query, services }) {
      const entries =
        query.account === undefined
          ? await services.accounts.auditAll(limitOf(query))
          : await services.accounts.audit(query.account, limitOf(query));
      return { entries };
    },
  },
  {
    method: "GET",
    path: `${ACCOUNT}/keys`,
    operationId: "listKeys",
    summary: "The account's keys, revoked and expired ones included",
    access: "account",
    status: 200,
    response: S.Key.array(),
    async handle({ params, services }) {
      const now = services.now();
      return (await services.keys.list(params.accountId)).map((key) =>
        adminKeyView(key, now, services.calendar),
      );
    },
  },
  {
    method: "POST",
    path: `${ACCOUNT}/keys`,
    operationId: "createKey",
    summary: "Create a key; its value is in this response and never again",
    access: "account",
    body: S.CreateKeyBody,
    status: 201,
    response: S.CreatedKey,
    async handle({ principal, params, body, services }) {
      const input = body as z.infer<typeof S.CreateKeyBody>;
      const { record, value } = await services.keys.create(
        {
          accountId: params.accountId,
          name: input.name,
          budget: input.budget,
          period: input.period,
          ttl: input.ttl,
          models: input.models,
          logBodies: input.log_bodies,
          rpm: input.rpm,
          tpm: input.tpm,
          maxParallel: input.max_parallel,
          alertAt: input.alert_at,
        },
        actorOf(principal),
      );
      return { ...adminKeyView(record, services.now(), services.calendar), key: value };
    },
  },
  {
    method: "GET",
    path: KEY,
    operationId: "showKey",
    summary: "A key",
    access: "account",
    status: 200,
    response: S.Key,
    async handle(call) {
      return adminKeyView(await keyOf(call), call.services.now(), call.services.calendar);
    },
  },
  {
    method: "PATCH",
    path: KEY,
    operationId: "updateKey",
    summary: "Change a key's name, budget, period, allowed models, privacy switch, lifetime or limits",
    access: "account",
    body: S.UpdateKeyBody,
    status: 200,
    response: S.Key,
    async handle(call) {
      const key = await keyOf(call);
      const input = call.body as z.infer<typeof S.UpdateKeyBody>;
      const record = await call.services.keys.update(
        key.id,
        {
          name: input.name,
          budget: input.budget,
          period: input.period,
          models: input.models,
          logBodies: input.log_bodies,
          ttl: input.ttl,
          rpm: input.rpm,
          tpm: input.tpm,
          maxParallel: input.max_parallel,
          alertAt: input.alert_at,
        },
        actorOf(call.principal),
      );
      return adminKeyView(record, call.services.now(), call.services.calendar);
    },
  },
  {
    method: "POST",
    path: `${KEY}/rotate`,
    operationId: "rotateKey",
    summary:
      "Give a key a new value, in this response and never again; the old one works until the grace period ends",
    access: "account",
    body: S.RotateKeyBody,
    status: 200,
    response: S.CreatedKey,
    async handle(call) {
      const key = await keyOf(call);
      const input = call.body as z.infer<typeof S.RotateKeyBody>;
      const { record, value } = await call.services.keys.rotate(key.id, input.grace, actorOf(call.principal));
      return { ...adminKeyView(record, call.services.now(), call.services.calendar), key: value };
    },
  },
  {
    method: "POST",
    path: `${KEY}/disable`,
    operationId: "disableKey",
    summary: "Disable a key for a while: refused with key_disabled, everything else kept, until enabled",
    access: "account",
    status: 200,
    response: S.Key,
    async handle(call) {
      const key = await keyOf(call);
      const { record } = await call.services.keys.setDisabled(key.id, true, actorOf(call.principal));
      return adminKeyView(record, call.services.now(), call.services.calendar);
    },
  },
  {
    method: "POST",
    path: `${KEY}/enable`,
    operationId: "enableKey",
    summary: "Enable a disabled key again",
    access: "account",
    status: 200,
    response: S.Key,
    async handle(call) {
      const key = await keyOf(call);
      const { record } = await call.services.keys.setDisabled(key.id, false, actorOf(call.principal));
      return adminKeyView(record, call.services.now(), call.services.calendar);
    },
  },
  {
    method: "POST",
    path: `${KEY}/revoke`,
    operationId: "revokeKey",
    summary: "Revoke a key: every gateway replica refuses it from the next request on",
    access: "account",
    status: 200,
    response: S.Key,
    async handle(call) {
      const key = await keyOf(call);
      const { record } = await call.services.keys.revoke(key.id, actorOf(call.principal));
      return adminKeyView(record, call.services.now(), call.services.calendar);
    },
  },
  {
    method: "GET",
    path: `${KEY}/usage`,
    operationId: "keyUsage",
    summary: "A key's requests, tokens, cost, latency and errors per day",
    access: "account",
    query: S.UsageQuery,
    status: 200,
    response: S.Usage,
    async handle(call) {
      const key = await keyOf(call);
      const days = await call.services.keys.usage(key.id, call.query.from, call.query.to);
      return { key_id: key.id, from: days[0]?.date ?? "", to: days.at(-1)?.date ?? "", days };
    },
  },
  {
    method: "GET",
    path: `${KEY}/requests`,
    operationId: "keyRequests",
    summary: "A key's most recent requests, newest first (bodies only while its log_bodies is on)",
    access: "account",
    query: S.LimitQuery,
    status: 200,
    response: S.RequestLog,
    async handle(call) {
      const key = await keyOf(call);
      return { key_id: key.id, requests: await call.services.keys.requests(key.id, limitOf(call.query)) };
    },
  },
  ...ALERT_ROUTES,
];

/** Applies a route's access rule for a principal and the path's parameters. */
export function authorize(route: Route, principal: Principal, params: Record<string, string>): void {
  if (route.access === "admin") assertAdmin(principal, route.forbiddenAction);
  if (params.accountId !== undefined) assertMayAccess(principal, params.accountId);
}
