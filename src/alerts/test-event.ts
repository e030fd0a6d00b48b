// The "send a test event" buttons: one signed event of type webhook.test, sent to one endpoint at once and
// outside the event stream (it is not an alert, is not stored and is never retried), so that whoever set the
// endpoint up sees at once what it answered.

import { randomToken } from "../auth/api-key.js";
import { TEST_EVENT_TYPE } from "../core/event-types.js";
import type { Attempt } from "./delivery-plan.js";
import type { Endpoint } from "./endpoints.js";
import type { WebhookBody } from "./event-data.js";
import { type SenderSettings, sendWebhook } from "./webhook-sender.js";

export const TEST_EVENT_MESSAGE = "A test event from tunnel-gateway: this endpoint receives its alerts.";

export async function sendTestEvent(
  endpoint: Endpoint,
  accountId: string | null,
  settings: SenderSettings,
  now: number,
): Promise<Attempt & { eventId: string }> {
  const body: WebhookBody = {
    id: `evt_test_${randomToken(20)}`,
    type: TEST_EVENT_TYPE,
    created_at: new Date(now).toISOString(),
    account_id: accountId,
    key_id: null,
    data: { message: TEST_EVENT_MESSAGE },
  };
  const attempt = await sendWebhook({
    url: endpoint.url,
    secret: endpoint.secret,
    eventId: body.id,
    body: JSON.stringify(body),
    timestamp: Math.floor(now / 1000),
    timeoutMs: settings.timeoutMs,
    publicOnly: endpoint.kind === "account" && !settings.allowPrivateNetworks,
    userAgent: settings.userAgent,
  });
  return { ...attempt, eventId: body.id };
}
