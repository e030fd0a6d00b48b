// The admin API's routes about who is calling and about accounts: the caller, the list of accounts, an
// account, its top-ups and its audit log (and the operator's audit log of every account).

import type { z } from "zod";
import { actorOf } from "./credentials.js";
import { ACCOUNT, limitOf, type Route } from "./route.js";
import * as S from "./schemas.js";
import { adminAccountView } from "./views.js";

export const ACCOUNT_ROUTES: readonly Route[] = [
  {
    method: "GET",
    path: "/admin/v1/me",
    operationId: "whoAmI",
    summary: "Who the credential belongs to: the operator, or one account",
    access: "account",
    status: 200,
    response: S.Me,
    async handle({ principal, services }) {
      return {
        role: principal.role,
        account_id: principal.role === "account" ? principal.accountId : null,
        timezone: services.calendar.zone,
      };
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
];
