// The delivery worker every gateway replica runs: it finds the accounts with alert work (the hint set the
// scripts' callers mark), emits their time-based events when due, claims their events — each handed to one
// worker at a time, under a lease — sends each to its endpoints and records the outcome, retrying with backoff
// (delivery-plan.ts). It runs beside the request path, never in it: a slow or failing endpoint costs a request
// nothing. A sweep of every account, by one replica at a time, rebuilds hints a crash may have lost, so that
// nothing waits longer than the sweep's interval for it.

import { hostname } from "node:os";
import type { Logger } from "pino";
import { randomToken } from "../auth/api-key.js";
import { timerDelay } from "../core/timer-delay.js";
import { urlOrigin } from "../core/webhook-url.js";
import type { AccountStore } from "../store/accounts/account-store.js";
import type { AlertSettingsStore } from "../store/accounts/alert-settings-store.js";
import type { ClaimedEvent, EventStore, StoredEvent } from "../store/accounts/event-store.js";
import {
  type Attempt,
  type AttemptResult,
  abandon,
  type DeliveryState,
  dueDeliveries,
  initialState,
  nextAttemptAt,
  parseState,
  type RetryPolicy,
  recordAttempt,
} from "./delivery-plan.js";
import { ACCOUNT_ENDPOINT, accountEndpoint, type Endpoint, receives } from "./endpoints.js";
import { eventData, type WebhookBody } from "./event-data.js";
import { type SenderSettings, sendWebhook } from "./webhook-sender.js";

export interface DeliverySettings extends RetryPolicy, SenderSettings {
  pollIntervalMs: number;
  sweepIntervalMs: number;
  /** The billing time zone (for the reset time of budget events). */
  timezone: string;
}

/** What the worker reports: the metrics. */
export interface DeliveryMetrics {
  /** An event handed out for the first time (each event once, across replicas). */
  alertEvent(type: string): void;
  webhookDelivery(result: AttemptResult): void;
}

export interface DeliveryWorkerOptions {
  events: EventStore;
  alertSettings: AlertSettingsStore;
  accounts: AccountStore;
  operatorEndpoints: readonly Endpoint[];
  settings: DeliverySettings;
  metrics: DeliveryMetrics;
  logger: Logger;
  now: () => number;
}

/** Events one claim hands out; all are sent at once, so that the lease covers one round of attempts. */
const CLAIM_BATCH = 16;
/** Accounts looked at per poll, and at the same time. */
const ACCOUNTS_PER_POLL = 64;
const ACCOUNTS_AT_ONCE = 8;
/** Accounts whose oldest undelivered event is read at the same time, for the metric. */
const ACCOUNTS_PER_SCRAPE_ROUND = 20;
/** How long a stopping worker waits for deliveries in flight; their leases hand them to others anyway. */
const STOP_WAIT_MS = 2000;

export class DeliveryWorker {
  /** This replica's name in the consumer groups. */
  readonly consumer = `${hostname()}-${process.pid}-${randomToken(6)}`;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private stopped = true;
  private lastSweep = Number.NEGATIVE_INFINITY;
  private readonly operator: ReadonlyMap<string, Endpoint>;
  /**
   * Accounts this worker is working on: their hint is taken away while it does, so the metric adds them (every
   * replica counts those it works on, and the alert takes the maximum over replicas).
   */
  private readonly working = new Set<string>();

  constructor(private readonly options: DeliveryWorkerOptions) {
    // One round of attempts takes at most the timeout; the lease leaves room for Redis and a slow machine.
    this.leaseMs = 2 * options.settings.timeoutMs + 10_000;
    this.operator = new Map(options.operatorEndpoints.map((endpoint) => [endpoint.id, endpoint]));
  }

  /** How this worker sends webhooks, for test events sent the same way. */
  get sender(): SenderSettings {
    const { timeoutMs, allowPrivateNetworks, userAgent } = this.options.settings;
    return { timeoutMs, allowPrivateNetworks, userAgent };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops polling and waits a little for the deliveries in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running) {
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([
        this.running,
        new Promise((resolve) => {
          timeout = setTimeout(resolve, STOP_WAIT_MS);
        }),
      ]);
      clearTimeout(timeout);
    }
  }

  /** The age (seconds) of the oldest event not yet delivered, over the accounts with work soon. */
  async oldestUndeliveredAgeSeconds(): Promise<number> {
    const { events, settings, now } = this.options;
    const at = now();
    const hinted = await events.accountsWithWork(at + settings.maxRetryMs + this.leaseMs, 1000);
    const accounts = [...new Set([...hinted, ...this.working])];
    let oldest = at;
    for (let i = 0; i < accounts.length; i += ACCOUNTS_PER_SCRAPE_ROUND) {
      const chunk = accounts.slice(i, i + ACCOUNTS_PER_SCRAPE_ROUND);
      for (const undelivered of await Promise.all(chunk.map((id) => events.oldestUndeliveredAt(id)))) {
        if (undelivered !== null) oldest = Math.min(oldest, undelivered);
      }
    }
    return Math.max(0, (at - oldest) / 1000);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.poll()
        .then((more) => this.schedule(more ? 0 : this.options.settings.pollIntervalMs))
        .finally(() => {
          this.running = null;
        });
    }, timerDelay(delayMs));
    this.timer.unref();
  }

  /** One round: the sweep when it is due, then the accounts with work; true when more work is waiting. */
  private async poll(): Promise<boolean> {
    const { events, logger, settings, now } = this.options;
    try {
      if (Date.now() - this.lastSweep >= settings.sweepIntervalMs) {
        this.lastSweep = Date.now();
        if (await events.claimSweep(this.consumer, settings.sweepIntervalMs)) await this.sweep();
      }
      const accounts = await events.accountsWithWork(now(), ACCOUNTS_PER_POLL);
      for (let i = 0; i < accounts.length && !this.stopped; i += ACCOUNTS_AT_ONCE) {
        await Promise.all(accounts.slice(i, i + ACCOUNTS_AT_ONCE).map((id) => this.work(id)));
      }
      return accounts.length === ACCOUNTS_PER_POLL;
    } catch (error) {
      logger.warn({ err: (error as Error).message }, "alert delivery: could not look for work; will retry");
      return false;
    }
  }

  /** Marks every account with work, so that hints lost in a crash are found again. */
  private async sweep(): Promise<void> {
    const { accounts, events, now } = this.options;
    for (const account of await accounts.list()) {
      if (this.stopped) return;
      const next = await events.nextWorkAt(account.id, now());
      if (next !== null) await events.markForWork(account.id, next);
    }
  }

  /** Everything due for one account: its time-based events, then its events to deliver. */
  private async work(accountId: string): Promise<void> {
    const { events, alertSettings, logger, now, metrics } = this.options;
    this.working.add(accountId);
    try {
      await events.unmark(accountId);
      await events.fireDue(accountId, now());
      let webhook: Endpoint | null | undefined;
      for (;;) {
        const claimed = await events.claim(accountId, this.consumer, now(), this.leaseMs, CLAIM_BATCH);
        if (claimed.length === 0) break;
        for (const { event, isNew } of claimed) if (isNew) metrics.alertEvent(event.type);
        if (webhook === undefined) {
          const own = await alertSettings.webhook(accountId);
          webhook = own ? accountEndpoint(own) : null;
        }
        await Promise.all(claimed.map((one) => this.deliver(one, webhook ?? null)));
        if (claimed.length < CLAIM_BATCH || this.stopped) break;
      }
    } catch (error) {
      logger.warn(
        { account: accountId, err: (error as Error).message },
        "alert delivery: an account's events could not be handled; will retry",
      );
    } finally {
      // Whatever is left — retries, leases, time-based events — brings the workers back when it is due.
      const next = await events.nextWorkAt(accountId, now()).catch(() => now());
      if (next !== null) await events.markForWork(accountId, next).catch(() => {});
      this.working.delete(accountId);
    }
  }

  /** One attempt at each of an event's due deliveries, then the state recorded under the lease. */
  private async deliver(claimed: ClaimedEvent, webhook: Endpoint | null): Promise<void> {
    const { events, logger, settings, now, metrics } = this.options;
    const { event } = claimed;
    const [json] = await events.deliveryStates(event.accountId, [event.streamId]);
    const state: DeliveryState = parseState(json ?? null) ?? initialState(this.targets(event, webhook));
    const body = this.body(event);
    await Promise.all(
      dueDeliveries(state, now()).map(async (delivery) => {
        const endpoint =
          delivery.endpoint === ACCOUNT_ENDPOINT ? webhook : (this.operator.get(delivery.endpoint) ?? null);
        if (endpoint === null) {
          abandon(delivery, now(), "the endpoint was removed");
          metrics.webhookDelivery("failed");
          return;
        }
        const attempt = await this.send(endpoint, body, now());
        const result = recordAttempt(delivery, attempt, now(), event.at, settings, Math.random());
        delivery.origin = urlOrigin(endpoint.url);
        metrics.webhookDelivery(result);
        const fields = {
          event_id: event.id,
          type: event.type,
          account: event.accountId,
          endpoint: delivery.endpoint,
          origin: delivery.origin,
          attempts: delivery.attempts,
          status_code: delivery.status_code,
        };
        if (result === "delivered") logger.info(fields, "webhook delivered");
        else if (result === "retried")
          logger.warn(
            { ...fields, error: delivery.error, next_attempt_at: delivery.next_attempt_at },
            "webhook delivery failed; will retry",
          );
        else logger.error({ ...fields, error: delivery.error }, "webhook delivery failed; giving up");
      }),
    );
    const outcome = await events.finish(
      event.accountId,
      claimed,
      JSON.stringify(state),
      nextAttemptAt(state, now()),
    );
    if (outcome === "lease_lost") {
      logger.warn(
        { event_id: event.id },
        "webhook delivery took longer than its lease; another worker has it",
      );
    }
  }

  /** The endpoints an event goes to: the operator's that take its type, and the account's own. */
  private targets(event: StoredEvent, webhook: Endpoint | null) {
    const all = [...this.options.operatorEndpoints, ...(webhook ? [webhook] : [])];
    return all
      .filter((endpoint) => receives(endpoint, event.type))
      .map((endpoint) => ({ id: endpoint.id, kind: endpoint.kind, origin: urlOrigin(endpoint.url) }));
  }

  private body(event: StoredEvent): WebhookBody {
    return {
      id: event.id,
      type: event.type as WebhookBody["type"],
      created_at: new Date(event.at).toISOString(),
      account_id: event.accountId,
      key_id: event.keyId,
      data: eventData(event.type, event.fields, this.options.settings.timezone),
    };
  }

  private send(endpoint: Endpoint, body: WebhookBody, now: number): Promise<Attempt> {
    const { settings } = this.options;
    return sendWebhook({
      url: endpoint.url,
      secret: endpoint.secret,
      eventId: body.id,
      body: JSON.stringify(body),
      timestamp: Math.floor(now / 1000),
      timeoutMs: settings.timeoutMs,
      publicOnly: endpoint.kind === "account" && !settings.allowPrivateNetworks,
      userAgent: settings.userAgent,
    });
  }
}
