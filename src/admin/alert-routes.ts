// The admin API's alert routes: an account's alert settings and its own webhook (set by its owner; the secret
// in the answer that sets it, never again), its recent events with each delivery's outcome, the test events,
// and the operator's webhooks. Spread into ROUTES (routes.ts), whose rules they follow.

import type { z } from "zod";
import * as A from "./alert-schemas.js";
import type { Route } from "./route.js";
import * as S from "./schemas.js";

const ACCOUNT = "/admin/v1/accounts/{accountId}";
const DEFAULT_LIMIT = 100;

function limitOf(query: Record<string, string | undefined>): number {
  return query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
}

export const ALERT_ROUTES: readonly Route[] = [
  {
    method: "GET",
    path: "/admin/v1/alerts",
    operationId: "operatorAlerts",
    summary: "The operator's webhooks and the default budget thresholds, from the configuration (operators)",
    action: "operator-alerts.read",
    status: 200,
    response: A.OperatorAlerts,
    async handle({ services }) {
      return {
        thresholds: services.alerts.defaultThresholds(),
        webhooks: services.alerts.operatorWebhooks(),
      };
    },
  },
  {
    method: "POST",
    path: "/admin/v1/alerts/webhooks/{webhookId}/test",
    operationId: "testOperatorWebhook",
    summary: "Send a test event (webhook.test) to one of the operator's webhooks now (operators)",
    action: "operator-alerts.test",
    status: 200,
    response: A.TestResult,
    async handle({ params, services }) {
      return services.alerts.testOperatorWebhook(params.webhookId as string);
    },
  },
  {
    method: "GET",
    path: `${ACCOUNT}/alerts`,
    operationId: "accountAlerts",
    summary: "The account's alert settings: its low-balance mark and its webhook",
    action: "alerts.read",
    status: 200,
    response: A.AccountAlerts,
    async handle({ params, services }) {
      return services.alerts.show(params.accountId);
    },
  },
  {
    method: "PATCH",
    path: `${ACCOUNT}/alerts`,
    operationId: "updateAccountAlerts",
    summary:
      "Set or remove the account's low-balance mark (balance.low is sent when the balance falls below it)",
    action: "alerts.write",
    body: A.UpdateAccountAlertsBody,
    status: 200,
    response: A.AccountAlerts,
    async handle({ principal, params, body, services }) {
      const { low_balance } = body as z.infer<typeof A.UpdateAccountAlertsBody>;
      return services.alerts.setLowBalance(params.accountId, low_balance, principal.actor);
    },
  },
  {
    method: "PUT",
    path: `${ACCOUNT}/webhook`,
    operationId: "setAccountWebhook",
    summary:
      "Set or replace the account's webhook; the answer holds its new signing secret, the only time it is shown",
    action: "alerts.write",
    body: A.SetWebhookBody,
    status: 200,
    response: A.CreatedWebhook,
    async handle({ principal, params, body, services }) {
      const input = body as z.infer<typeof A.SetWebhookBody>;
      return services.alerts.setWebhook(params.accountId, input, principal.actor);
    },
  },
  {
    method: "DELETE",
    path: `${ACCOUNT}/webhook`,
    operationId: "removeAccountWebhook",
    summary: "Remove the account's webhook",
    action: "alerts.write",
    status: 200,
    response: A.RemovedWebhook,
    async handle({ principal, params, services }) {
      return { removed: await services.alerts.removeWebhook(params.accountId, principal.actor) };
    },
  },
  {
    method: "POST",
    path: `${ACCOUNT}/webhook/test`,
    operationId: "testAccountWebhook",
    summary: "Send a test event (webhook.test) to the account's webhook now, and say what it answered",
    action: "alerts.write",
    status: 200,
    response: A.TestResult,
    async handle({ params, services }) {
      return services.alerts.testWebhook(params.accountId);
    },
  },
  {
    method: "GET",
    path: `${ACCOUNT}/events`,
    operationId: "accountEvents",
    summary: "The account's recent alert events, newest first, with each delivery's outcome",
    action: "events.read",
    query: S.LimitQuery,
    status: 200,
    response: A.AlertEvents,
    async handle({ principal, params, query, services }) {
      const events = await services.alerts.events(
        params.accountId,
        limitOf(query),
        // The operator's own webhooks' deliveries are the operators' business.
        principal.operatorRole !== null,
      );
      return { events };
    },
  },
];
