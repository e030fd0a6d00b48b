// The alerts' settings: default budget thresholds, the operator's webhooks, which URLs a webhook may have,
// how long events are kept, and the delivery's timeouts and retries.

import { z } from "zod";
import { EVENT_TYPES } from "../core/event-types.js";
import { MAX_THRESHOLD, MAX_THRESHOLDS, MIN_THRESHOLD } from "../core/thresholds.js";
import { webhookUrlProblem } from "../core/webhook-url.js";

/** An operator's webhook: where every account's events of the listed types go, signed with a secret from env. */
const operatorWebhook = z.strictObject({
  url: z.string(),
  /** The environment variable holding the signing secret (never the secret itself: files are not secret). */
  secretEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the name of an environment variable"),
  /** Event types sent to it; every type when left out. */
  events: z.array(z.enum(EVENT_TYPES)).min(1).optional(),
});

export const alertsSection = z
  .strictObject({
    /** Budget thresholds (percent) of keys that have none of their own. */
    thresholds: z
      .array(z.number().int().min(MIN_THRESHOLD).max(MAX_THRESHOLD))
      .max(MAX_THRESHOLDS)
      .default([80, 95, 100]),
    webhooks: z.array(operatorWebhook).default([]),
    allowHttp: z.boolean().default(false),
    allowPrivateNetworks: z.boolean().default(false),
    eventRetentionDays: z.number().int().min(2).default(7),
    delivery: z
      .strictObject({
        timeoutMs: z.number().int().positive().max(60_000).default(10_000),
        firstRetrySeconds: z.number().positive().default(30),
        maxRetrySeconds: z.number().positive().default(3600),
        giveUpHours: z.number().positive().default(24),
        pollIntervalMs: z.number().int().min(10).default(1000),
        sweepSeconds: z.number().positive().default(60),
      })
      .prefault({}),
  })
  .superRefine((section, ctx) => {
    const urls = new Set<string>();
    section.webhooks.forEach((webhook, i) => {
      const problem = webhookUrlProblem(webhook.url, section.allowHttp);
      if (problem) ctx.addIssue({ code: "custom", path: ["webhooks", i, "url"], message: problem });
      if (urls.has(webhook.url))
        ctx.addIssue({ code: "custom", path: ["webhooks", i, "url"], message: "is listed twice" });
      urls.add(webhook.url);
    });
    if (section.eventRetentionDays * 24 <= section.delivery.giveUpHours) {
      ctx.addIssue({
        code: "custom",
        path: ["eventRetentionDays"],
        message: "must be longer than delivery.giveUpHours: events are kept until their deliveries are over",
      });
    }
  })
  .prefault({});
