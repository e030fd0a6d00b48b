// The admin API's routes about accounts: the list of accounts, an account, its top-ups and its audit log
// (and the operators' audit log of every account).

import type { z } from "zod";
import { ACCOUNT, limitOf, type Route } from "./route.js";
import * as S from "./schemas.js";
import { adminAccountView } from "./views.js";

export const ACCOUNT_ROUTES: readonly Route[] = [
  {
    method: "GET",
    path: "/admin/v1/accounts",
    operationId: "listAccounts",
    summary: "The accounts the caller has a role in (an operator role: every account)",
    action: "me",
    status: 200,
    response: S.Account.array(),
    async handle({ principal, services }) {
      if (principal.operatorRole !== null)
        return (await services.accounts.list()).map((account) => adminAccountView(account, services));
      const ids = [...(await principal.accounts()).keys()];
      const accounts = await Promise.all(ids.map((id) => services.accounts.find(id)));
      return accounts
        .filter((account) => account !== null)
        .map((account) => adminAccountView(account, services));
    },
  },
  {
    method: "POST",
    path: "/admin/v1/accounts",
    operationId: "createAccount",
    summary: "Create an account (operators)",
    action: "accounts.create",
    body: S.CreateAccountBody,
    status: 201,
    response: S.Account,
    async handle({ principal, body, services }) {
      const input = body as z.infer<typeof S.CreateAccountBody>;
      return adminAccountView(await services.accounts.create(input, principal.actor), services);
    },
  },
  {
    method: "GET",
    path: ACCOUNT,
    operationId: "showAccount",
    summary: "An account and its balance",
    action: "account.read",
    status: 200,
    response: S.Account,
    async handle({ params, services }) {
      return adminAccountView(await services.accounts.show(params.accountId), services);
    },
  },
  {
    method: "POST",
    path: `${ACCOUNT}/topups`,
    operationId: "topUpAccount",
    summary: "Add rubles to an account's balance (operators)",
    action: "account.topup",
    body: S.TopUpBody,
    status: 200,
    response: S.Account,
    async handle({ principal, params, body, services }) {
      const { amount } = body as z.infer<typeof S.TopUpBody>;
      const account = await services.accounts.topUp(params.accountId, amount, principal.actor);
      services.balanceChanged?.(account.id, account.balance);
      return adminAccountView(account, services);
    },
  },
  {
    method: "PUT",
    path: `${ACCOUNT}/budgets`,
    operationId: "setAccountBudgets",
    summary:
      "Set how an account pays (prepaid, budgeted, both) and its own budget windows, shared by all its keys (operators)",
    action: "account.budgets",
    body: S.AccountBudgetsBody,
    status: 200,
    response: S.Account,
    async handle({ principal, params, body, services }) {
      const input = body as z.infer<typeof S.AccountBudgetsBody>;
      const account = await services.budgets.setAccountBudgets(
        params.accountId,
        { billing: input.billing, budgets: input.budgets, alertAt: input.alert_at },
        principal.actor,
      );
      return adminAccountView(account, services);
    },
  },
  {
    method: "GET",
    path: `${ACCOUNT}/audit`,
    operationId: "accountAudit",
    summary: "The account's audit log, newest first",
    action: "audit.read",
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
    summary: "The audit log of every account, newest first (operators)",
    action: "audit.read-all",
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
