// The replica's delivery worker built from the configuration: alerts.delivery's timings in milliseconds, the
// billing time zone for the webhooks' dates, the gateway's User-Agent.

import type { Config } from "../config/schema.js";
import type { Stores } from "../store/stores.js";
import { DeliveryWorker, type DeliveryWorkerOptions } from "./delivery-worker.js";
import { WEBHOOK_USER_AGENT } from "./webhook-sender.js";

/** The replica's delivery worker as the configuration sets it up (alerts.delivery, the billing time zone). */
export function createDeliveryWorker(
  config: Pick<Config, "alerts" | "billing">,
  deps: Pick<DeliveryWorkerOptions, "operatorEndpoints" | "metrics" | "logger" | "now"> & {
    stores: Pick<Stores, "events" | "alertSettings" | "accounts">;
  },
): DeliveryWorker {
  const { delivery } = config.alerts;
  const { stores, ...rest } = deps;
  return new DeliveryWorker({
    events: stores.events,
    alertSettings: stores.alertSettings,
    accounts: stores.accounts,
    settings: {
      timeoutMs: delivery.timeoutMs,
      firstRetryMs: delivery.firstRetrySeconds * 1000,
      maxRetryMs: delivery.maxRetrySeconds * 1000,
      giveUpMs: delivery.giveUpHours * 3_600_000,
      pollIntervalMs: delivery.pollIntervalMs,
      sweepIntervalMs: delivery.sweepSeconds * 1000,
      allowPrivateNetworks: config.alerts.allowPrivateNetworks,
      timezone: config.billing.timezone,
      userAgent: WEBHOOK_USER_AGENT,
    },
    ...rest,
  });
}
