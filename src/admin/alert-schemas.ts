// The admin API's shapes for alerts: an account's alert settings and webhook, the operator's webhooks, recent
// events with their deliveries, test results. Kept apart from schemas.ts, with the same conventions.

import { z } from "zod";
import { EVENT_TYPES, TEST_EVENT_TYPE } from "../core/event-types.js";
import { isoTime } from "../core/time-schema.js";

const eventType = z.enum(EVENT_TYPES);

export const WebhookIdParam = z.string().meta({
  description: "Id of one of the operator's webhooks (GET /admin/v1/alerts)",
  examples: ["op_3f9a1c2b7d4e"],
});

export const Webhook = z
  .object({
    url: z.string(),
    events: z.array(z.string()).nullable().meta({ description: "Event types it receives; null for all" }),
    secret_hint: z.string().meta({ description: "The signing secret's last four characters" }),
    created_at: isoTime,
  })
  .meta({ id: "Webhook" });

export const AccountAlerts = z
  .object({
    account_id: z.string(),
    low_balance: z.number().nullable().meta({ description: "Rubles: balance.low below this; null for none" }),
    currency: z.literal("RUB"),
    webhook: Webhook.nullable(),
    default_thresholds: z
      .array(z.number())
      .meta({ description: "Budget thresholds (percent) of keys whose alert_at is null" }),
  })
  .meta({ id: "AccountAlerts" });

export const UpdateAccountAlertsBody = z
  .strictObject({
    low_balance: z
      .union([z.number(), z.string()])
      .nullable()
      .meta({ description: "Rubles, a positive amount; null removes the mark" }),
  })
  .meta({ id: "UpdateAccountAlerts", examples: [{ low_balance: 500 }] });

export const SetWebhookBody = z
  .strictObject({
    url: z.string().meta({ description: "https:// URL (http:// only with alerts.allowHttp)" }),
    events: z
      .array(eventType)
      .nullable()
      .optional()
      .meta({ description: "Event types to send; all when omitted" }),
  })
  .meta({
    id: "SetWebhook",
    examples: [{ url: "https://hooks.example.com/tunnel", events: ["budget.threshold", "balance.low"] }],
  });

export const CreatedWebhook = z
  .object({
    webhook: Webhook,
    secret: z.string().meta({ description: "The signing secret: shown in this response and never again" }),
  })
  .meta({ id: "CreatedWebhook" });

export const RemovedWebhook = z
  .object({ removed: z.boolean().meta({ description: "false when the account had no webhook" }) })
  .meta({ id: "RemovedWebhook" });

export const TestResult = z
  .object({
    event_id: z.string(),
    delivered: z.boolean().meta({ description: "The endpoint answered 2xx" }),
    status_code: z.number().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: "TestResult" });

export const OperatorAlerts = z
  .object({
    thresholds: z.array(z.number()).meta({ description: "Default budget thresholds (alerts.thresholds)" }),
    webhooks: z.array(
      z.object({
        id: z.string(),
        url: z.string(),
        events: z.array(z.string()).nullable(),
      }),
    ),
  })
  .meta({ id: "OperatorAlerts" });

const Delivery = z
  .object({
    endpoint: z.string().meta({ description: "account, or the id of one of the operator's webhooks" }),
    kind: z.enum(["operator", "account"]),
    origin: z.string().meta({ description: "scheme://host of the URL it goes to" }),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number(),
    status_code: z.number().nullable().meta({ description: "The last attempt's HTTP status" }),
    error: z.string().nullable(),
    last_attempt_at: isoTime.nullable(),
    next_attempt_at: isoTime.nullable().meta({ description: "When a pending delivery is retried" }),
    delivered_at: isoTime.nullable(),
  })
  .meta({ id: "Delivery" });

export const AlertEvent = z
  .object({
    id: z.string(),
    type: z.union([eventType, z.literal(TEST_EVENT_TYPE), z.string()]),
    created_at: isoTime,
    account_id: z.string(),
    key_id: z.string().nullable(),
    data: z.record(z.string(), z.unknown()),
    status: z.enum(["queued", "pending", "delivered", "failed", "no_endpoints"]),
    deliveries: z.array(Delivery),
  })
  .meta({ id: "AlertEvent" });

export const AlertEvents = z.object({ events: z.array(AlertEvent) }).meta({ id: "AlertEvents" });
