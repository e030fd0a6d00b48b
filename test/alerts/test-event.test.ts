// The "send a test event" buttons, against a real webhook receiver: one signed webhook.test event to the
// endpoint tested, what came of it, and the refusal of a private address for an account's own endpoint.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { signature } from "../../src/alerts/signing.js";
import { sendTestEvent, TEST_EVENT_MESSAGE } from "../../src/alerts/test-event.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

const NOW = Date.parse("2026-11-21T10:00:00Z");
const settings = { timeoutMs: 5_000, allowPrivateNetworks: true, userAgent: "tunnel-gateway/test" };
let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(() => receiver.close());

const endpoint = (kind: "operator" | "account") => ({
  id: kind,
  kind,
  url: receiver.url,
  secret: "whsec_test_secret_0123456789",
  events: ["balance.low"],
});

describe("test events", () => {
  it("send one signed webhook.test event, whatever types the endpoint takes", async () => {
    const attempt = await sendTestEvent(endpoint("account"), "acme", settings, NOW);
    expect(attempt).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(attempt.eventId).toMatch(/^evt_test_[A-Za-z0-9_-]{20}/);
    expect(receiver.received).toHaveLength(1);
    const [received] = receiver.received;
    expect(received?.body).toEqual({
      id: attempt.eventId,
      type: "webhook.test",
      created_at: "2026-11-21T10:00:00.000Z",
      account_id: "acme",
      key_id: null,
      data: { message: TEST_EVENT_MESSAGE },
    });
    expect(received?.eventId).toBe(attempt.eventId);
    expect(received?.signature).toBe(
      signature("whsec_test_secret_0123456789", received?.raw ?? "", NOW / 1000),
    );
  });

  it("say what the endpoint answered", async () => {
    receiver.answers.push(500);
    expect(await sendTestEvent(endpoint("operator"), null, settings, NOW)).toMatchObject({
      ok: false,
      statusCode: 500,
    });
  });

  it("refuse an account's endpoint on a private address unless private networks are allowed", async () => {
    const attempt = await sendTestEvent(
      endpoint("account"),
      "acme",
      { ...settings, allowPrivateNetworks: false },
      NOW,
    );
    expect(attempt.ok).toBe(false);
    expect(attempt.error).toMatch(/private|loopback|not allowed/i);
    expect(receiver.received).toHaveLength(0);
    // The operator's own webhooks may be anywhere.
    expect(
      (await sendTestEvent(endpoint("operator"), null, { ...settings, allowPrivateNetworks: false }, NOW)).ok,
    ).toBe(true);
  });
});
