// Every call the dashboard makes to the admin API, one function each, with the shapes it sends and receives;
// those about people (signing in, one's own account, members, users) are in people-endpoints.ts.

import { call, download, queryOf } from "./client.js";
import { peopleCalls } from "./people-endpoints.js";
import type {
  Account,
  AccountAlerts,
  AccountBudgetsBody,
  AccountQueue,
  AccountSharingBody,
  AccountUsage,
  AlertEvents,
  AuditLog,
  CreatedKey,
  CreatedWebhook,
  CreateKeyBody,
  Key,
  Me,
  OperatorAlerts,
  Overview,
  RequestPage,
  TestResult,
  UpdateKeyBody,
  Usage,
} from "./types.js";

export interface RequestQuery {
  status?: string;
  model?: string;
  from?: string;
  to?: string;
  request_id?: string;
  offset?: number;
  limit?: number;
}

const enc = encodeURIComponent;
const account = (id: string) => `/admin/v1/accounts/${enc(id)}`;
const key = (accountId: string, keyId: string) => `${account(accountId)}/keys/${enc(keyId)}`;

export const api = {
  me: (token?: string) => call<Me>("GET", "/admin/v1/me", token === undefined ? {} : { token }),
  /** Who is signed in when the page opens: a 401 then means no one, not a session that ended. */
  whoIsSignedIn: () => call<Me>("GET", "/admin/v1/me", { anonymous: true }),
  accounts: () => call<Account[]>("GET", "/admin/v1/accounts"),
  createAccount: (body: { id: string; name?: string; balance?: string }) =>
    call<Account>("POST", "/admin/v1/accounts", { body }),
  account: (id: string) => call<Account>("GET", account(id)),
  topUp: (id: string, amount: string) => call<Account>("POST", `${account(id)}/topups`, { body: { amount } }),
  accountQueue: (id: string) => call<AccountQueue>("GET", `${account(id)}/queue`),
  setAccountSharing: (id: string, body: AccountSharingBody) =>
    call<Account>("PUT", `${account(id)}/sharing`, { body }),
  setAccountBudgets: (id: string, body: AccountBudgetsBody) =>
    call<Account>("PUT", `${account(id)}/budgets`, { body }),
  accountAudit: (id: string, limit = 100) => call<AuditLog>("GET", `${account(id)}/audit?limit=${limit}`),
  audit: (limit = 100) => call<AuditLog>("GET", `/admin/v1/audit?limit=${limit}`),
  keys: (accountId: string) => call<Key[]>("GET", `${account(accountId)}/keys`),
  createKey: (accountId: string, body: CreateKeyBody) =>
    call<CreatedKey>("POST", `${account(accountId)}/keys`, { body }),
  key: (accountId: string, keyId: string) => call<Key>("GET", key(accountId, keyId)),
  updateKey: (accountId: string, keyId: string, body: UpdateKeyBody) =>
    call<Key>("PATCH", key(accountId, keyId), { body }),
  revokeKey: (accountId: string, keyId: string) => call<Key>("POST", `${key(accountId, keyId)}/revoke`),
  rotateKey: (accountId: string, keyId: string, grace: string) =>
    call<CreatedKey>("POST", `${key(accountId, keyId)}/rotate`, { body: { grace } }),
  disableKey: (accountId: string, keyId: string) => call<Key>("POST", `${key(accountId, keyId)}/disable`),
  enableKey: (accountId: string, keyId: string) => call<Key>("POST", `${key(accountId, keyId)}/enable`),
  usage: (accountId: string, keyId: string) => call<Usage>("GET", `${key(accountId, keyId)}/usage`),
  requestPage: (accountId: string, keyId: string, query: RequestQuery) =>
    call<RequestPage>("GET", `${key(accountId, keyId)}/requests${queryOf({ ...query })}`),
  accountUsage: (id: string, from?: string, to?: string) =>
    call<AccountUsage>("GET", `${account(id)}/usage${queryOf({ from, to })}`),
  downloadUsage: (id: string, from?: string, to?: string) =>
    download(`${account(id)}/usage.csv${queryOf({ from, to })}`, `${id}-usage.csv`),
  downloadRequests: (id: string, from?: string, to?: string) =>
    download(`${account(id)}/requests.csv${queryOf({ from, to })}`, `${id}-requests.csv`),
  overview: (query: { q?: string; sort?: string; offset?: number; limit?: number }) =>
    call<Overview>("GET", `/admin/v1/overview${queryOf({ ...query })}`),
  setKeyAlerts: (accountId: string, keyId: string, alertAt: number[] | null) =>
    call<Key>("PATCH", key(accountId, keyId), { body: { alert_at: alertAt } }),
  accountAlerts: (id: string) => call<AccountAlerts>("GET", `${account(id)}/alerts`),
  setLowBalance: (id: string, lowBalance: string | null) =>
    call<AccountAlerts>("PATCH", `${account(id)}/alerts`, { body: { low_balance: lowBalance } }),
  setWebhook: (id: string, url: string) =>
    call<CreatedWebhook>("PUT", `${account(id)}/webhook`, { body: { url } }),
  removeWebhook: (id: string) => call<{ removed: boolean }>("DELETE", `${account(id)}/webhook`),
  testWebhook: (id: string) => call<TestResult>("POST", `${account(id)}/webhook/test`),
  events: (id: string, limit = 50) => call<AlertEvents>("GET", `${account(id)}/events?limit=${limit}`),
  operatorAlerts: () => call<OperatorAlerts>("GET", "/admin/v1/alerts"),
  testOperatorWebhook: (webhookId: string) =>
    call<TestResult>("POST", `/admin/v1/alerts/webhooks/${enc(webhookId)}/test`),
  ...peopleCalls,
};
