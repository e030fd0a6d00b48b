// Alert settings and events, for the admin API, the dashboard and the CLI: an account's low-balance mark and
// its own webhook (whose secret is returned once, when it is set), the operator's webhooks (from the
// configuration), the recent events with each delivery's outcome, and the test event. Every change names its
// actor and is recorded in the audit log by its script.

import {
  type DeliveryState,
  type EndpointDelivery,
  overallStatus,
  parseState,
} from "../alerts/delivery-plan.js";
import { accountEndpoint, type Endpoint } from "../alerts/endpoints.js";
import { eventData } from "../alerts/event-data.js";
import { generateWebhookSecret } from "../alerts/signing.js";
import { sendTestEvent } from "../alerts/test-event.js";
import type { SenderSettings } from "../alerts/webhook-sender.js";
import { GatewayError } from "../core/errors.js";
import { isEventType } from "../core/event-types.js";
import { formatRubles, type Micros, parsePositiveRubles, rublesForJson } from "../core/money.js";
import { validateAccountId } from "../core/validate.js";
import { urlOrigin, webhookUrlProblem } from "../core/webhook-url.js";
import { accountNotFound } from "../store/accounts/account-store.js";
import type { AccountWebhook } from "../store/accounts/alert-settings-store.js";
import type { ListedEvent } from "../store/accounts/event-store.js";
import { type Actor, auditEntry } from "../store/audit/audit-store.js";
import type { Stores } from "../store/stores.js";
import { amountText } from "./accounts.js";
import { CURRENCY, iso } from "./views.js";

export interface AlertOptions {
  /** alerts.allowHttp: http:// webhook URLs are accepted. */
  allowHttp: boolean;
  /** The operator's webhooks (configuration), for listing and testing; none where they are not loaded (CLI). */
  operatorEndpoints?: readonly Endpoint[];
  /** How test events are sent; absent where none can be (CLI). */
  sender?: SenderSettings;
  /** alerts.thresholds: the budget thresholds of keys without their own. */
  thresholds: readonly number[];
}

export interface WebhookView {
  url: string;
  events: string[] | null;
  secret_hint: string;
  created_at: string;
}

export interface AccountAlertsView {
  account_id: string;
  low_balance: number | null;
  currency: typeof CURRENCY;
  webhook: WebhookView | null;
  /** The thresholds of keys without their own (alert_at null). */
  default_thresholds: number[];
}

export interface DeliveryView {
  endpoint: string;
  kind: "operator" | "account";
  origin: string;
  status: EndpointDelivery["status"];
  attempts: number;
  status_code: number | null;
  error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
}

export interface EventView {
  id: string;
  type: string;
  created_at: string;
  account_id: string;
  key_id: string | null;
  data: Record<string, unknown>;
  /** queued: no worker has tried it yet; otherwise the deliveries' outcome as a whole. */
  status: "queued" | ReturnType<typeof overallStatus>;
  deliveries: DeliveryView[];
}

export interface TestResult {
  event_id: string;
  delivered: boolean;
  status_code: number | null;
  error: string | null;
}

export const MAX_EVENTS_READ = 500;

/** The stores AlertService reads and writes. */
export type AlertStores = Pick<Stores, "accounts" | "alertSettings" | "events" | "calendar" | "now">;

export class AlertService {
  constructor(
    private readonly stores: AlertStores,
    private readonly options: AlertOptions,
  ) {}

  async show(accountId: unknown): Promise<AccountAlertsView> {
    const id = validateAccountId(accountId);
    const account = await this.stores.accounts.require(id);
    const webhook = await this.stores.alertSettings.webhook(id);
    return {
      account_id: id,
      low_balance: account.lowBalance === undefined ? null : rublesForJson(account.lowBalance),
      currency: CURRENCY,
      webhook: webhook && webhookView(webhook),
      default_thresholds: this.defaultThresholds(),
    };
  }

  /** Sets the low-balance mark in rubles, or clears it with null. */
  async setLowBalance(accountId: unknown, amount: unknown, actor: Actor): Promise<AccountAlertsView> {
    const id = validateAccountId(accountId);
    const mark: Micros | null =
      amount === null ? null : parsePositiveRubles(amountText(amount, "low_balance"), "low_balance");
    const audit = auditEntry(actor, this.stores.now(), "account.alerts.update", id, {
      low_balance: mark === null ? null : formatRubles(mark),
    });
    if (!(await this.stores.alertSettings.setLowBalance(id, mark, audit))) throw accountNotFound(id);
    return this.show(id);
  }

  /** Sets or replaces the account's webhook with a new secret, returned here and never again. */
  async setWebhook(
    accountId: unknown,
    input: { url: unknown; events?: unknown },
    actor: Actor,
  ): Promise<{ webhook: WebhookView; secret: string }> {
    const id = validateAccountId(accountId);
    const url = this.urlInput(input.url);
    const events = eventsInput(input.events);
    const now = this.stores.now();
    const secret = generateWebhookSecret();
    const webhook: AccountWebhook = { url, secret, hint: secret.slice(-4), events, createdAt: now };
    const audit = auditEntry(actor, now, "account.webhook.set", id, { origin: urlOrigin(url), events });
    if (!(await this.stores.alertSettings.setWebhook(id, webhook, audit))) throw accountNotFound(id);
    return { webhook: webhookView(webhook), secret };
  }

  /** Removes the account's webhook; returns whether it had one. */
  async removeWebhook(accountId: unknown, actor: Actor): Promise<boolean> {
    const id = validateAccountId(accountId);
    const audit = auditEntry(actor, this.stores.now(), "account.webhook.remove", id, {});
    const outcome = await this.stores.alertSettings.removeWebhook(id, audit);
    if (outcome === "account_not_found") throw accountNotFound(id);
    return outcome === "removed";
  }

  /** Sends a test event to the account's webhook. */
  async testWebhook(accountId: unknown): Promise<TestResult> {
    const id = validateAccountId(accountId);
    await this.stores.accounts.require(id);
    const webhook = await this.stores.alertSettings.webhook(id);
    if (!webhook) {
      throw new GatewayError("invalid_request", `account ${id} has no webhook to test: set one first`);
    }
    return this.test(accountEndpoint(webhook), id);
  }

  defaultThresholds(): number[] {
    return [...this.options.thresholds];
  }

  /** The operator's webhooks, as the configuration lists them. */
  operatorWebhooks(): { id: string; url: string; events: readonly string[] | null }[] {
    return (this.options.operatorEndpoints ?? []).map(({ id, url, events }) => ({ id, url, events }));
  }

  /** Sends a test event to one of the operator's webhooks. */
  async testOperatorWebhook(webhookId: string): Promise<TestResult> {
    const endpoint = this.options.operatorEndpoints?.find((candidate) => candidate.id === webhookId);
    if (!endpoint) {
      throw new GatewayError("not_found", `There is no operator webhook ${webhookId} in the configuration.`);
    }
    return this.test(endpoint, null);
  }

  /**
   * The account's most recent events, newest first, with each delivery's outcome; deliveries to the operator's
   * webhooks only when `withOperator` (an account owner sees its own endpoint's).
   */
  async events(accountId: unknown, limit: number, withOperator: boolean): Promise<EventView[]> {
    const id = validateAccountId(accountId);
    await this.stores.accounts.require(id);
    const listed = await this.stores.events.recent(id, Math.min(Math.max(1, limit), MAX_EVENTS_READ));
    return listed.map((entry) => this.eventView(entry, withOperator));
  }

  private eventView({ event, state: json, handedOut }: ListedEvent, withOperator: boolean): EventView {
    const parsed = parseState(json);
    const state: DeliveryState | null = parsed && {
      endpoints: parsed.endpoints.filter((delivery) => withOperator || delivery.kind === "account"),
    };
    return {
      id: event.id,
      type: event.type,
      created_at: iso(event.at),
      account_id: event.accountId,
      key_id: event.keyId,
      data: eventData(event.type, event.fields, this.stores.calendar.zone),
      status: state === null || !handedOut ? "queued" : overallStatus(state),
      deliveries: (state?.endpoints ?? []).map(deliveryView),
    };
  }

  private async test(endpoint: Endpoint, accountId: string | null): Promise<TestResult> {
    if (!this.options.sender) {
      throw new GatewayError(
        "invalid_request",
        "Test events are sent by a running gateway: use the admin API.",
      );
    }
    const attempt = await sendTestEvent(endpoint, accountId, this.options.sender, this.stores.now());
    return {
      event_id: attempt.eventId,
      delivered: attempt.ok,
      status_code: attempt.statusCode,
      error: attempt.error,
    };
  }

  private urlInput(value: unknown): string {
    const problem =
      typeof value === "string" ? webhookUrlProblem(value, this.options.allowHttp) : "must be a URL";
    if (problem) throw new GatewayError("invalid_request", `url ${problem}`);
    return value as string;
  }
}

function eventsInput(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length === 0 || !value.every(isEventType)) {
    throw new GatewayError(
      "invalid_request",
      "events must be a list of event types (budget.threshold, balance.low, key.expiring, …); leave it out for all",
    );
  }
  return [...new Set(value)];
}

function webhookView(webhook: AccountWebhook): WebhookView {
  return {
    url: webhook.url,
    events: webhook.events,
    secret_hint: webhook.hint,
    created_at: iso(webhook.createdAt),
  };
}

function deliveryView(delivery: EndpointDelivery): DeliveryView {
  const time = (ms: number | null) => (ms === null ? null : iso(ms));
  return {
    endpoint: delivery.endpoint,
    kind: delivery.kind,
    origin: delivery.origin,
    status: delivery.status,
    attempts: delivery.attempts,
    status_code: delivery.status_code,
    error: delivery.error,
    last_attempt_at: time(delivery.last_attempt_at),
    next_attempt_at: time(delivery.next_attempt_at),
    delivered_at: time(delivery.delivered_at),
  };
}
