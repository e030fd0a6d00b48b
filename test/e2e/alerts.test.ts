// Alert events and webhooks end to end, in one gateway: real requests through a stub model server, a real HTTP
// receiver, the injected clock moved instead of waiting for retries and period boundaries.

import { afterEach, describe, expect, it } from "vitest";
import { ACTOR } from "../helpers/actor.js";
import {
  alertsTo,
  documentedVerify,
  eventsOf,
  spend,
  WEBHOOK_ENV,
  WEBHOOK_SECRET,
  waitForDelivery,
} from "../helpers/alerts.js";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

const ADMIN = "admin-token-0123456789";
/** What one chat() costs at PRICING: 4 prompt tokens at 1000 ₽/M and 6 completion tokens at 2000 ₽/M. */
const CHAT_COST = 0.016;

let t: TestGateway;
let upstream: StubUpstream;
let receiver: WebhookReceiver;

afterEach(async () => {
  await t?.close();
  await upstream?.close();
  await receiver?.close();
});

async function start(alerts: Record<string, unknown>, config: Record<string, unknown> = {}) {
  upstream = await startStubUpstream();
  t = await startTestGateway({
    upstreamUrl: upstream.url,
    config: { pricing: PRICING, alerts, admin: { token: ADMIN }, ...config },
    env: WEBHOOK_ENV,
  });
}

async function chat(key: string): Promise<Response> {
  const res = await t.fetch("/v1/chat/completions", {
    key,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "demo-small",
      max_tokens: 6,
      messages: [{ role: "user", content: "one two three four" }],
    }),
  });
  await res.arrayBuffer();
  // Settled before anything else is charged, so that the figures of the events are known.
  await t.gateway.settled();
  return res;
}

function admin(path: string, init: { method?: string; body?: unknown } = {}) {
  return fetch(`${t.gateway.adminUrl}${path}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(init.body !== undefined && { "content-type": "application/json" }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

describe("budget.threshold", () => {
  it("is delivered once, signed, when a settlement crosses 80 %, and verifies with the documented snippet", async () => {
    receiver = await startWebhookReceiver();
    await start(alertsTo(receiver.url, ["budget.threshold"]));
    const key = await t.newKey({ budget: "1" });
    const ref = { accountId: key.accountId, keyId: key.id };
    await spend(t.store, ref, 784_000);
    expect((await chat(key.value)).status).toBe(200);

    const event = await waitForDelivery(
      t.store,
      key.accountId,
      (e) => e.type === "budget.threshold",
      "delivered",
    );
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const verify = await documentedVerify();
    expect(
      verify(WEBHOOK_SECRET, delivery?.signature as string, delivery?.raw as string, { now: t.clock.now() }),
    ).toBe(true);
    // The snippet refuses a wrong secret, a changed body, and a signature older than its tolerance.
    expect(
      verify("whsec_wrong", delivery?.signature as string, delivery?.raw as string, { now: t.clock.now() }),
    ).toBe(false);
    expect(
      verify(WEBHOOK_SECRET, delivery?.signature as string, `${delivery?.raw} `, { now: t.clock.now() }),
    ).toBe(false);
    expect(
      verify(WEBHOOK_SECRET, delivery?.signature as string, delivery?.raw as string, {
        now: t.clock.now() + 301_000,
      }),
    ).toBe(false);

    expect(delivery?.headers["content-type"]).toBe("application/json");
    expect(delivery?.eventId).toBe(event.id);
    expect(delivery?.signature).toMatch(
      new RegExp(`^t=${Math.floor(t.clock.now() / 1000)},v1=[0-9a-f]{64}$`),
    );
    expect(delivery?.body).toEqual({
      id: event.id,
      type: "budget.threshold",
      created_at: new Date(t.clock.now()).toISOString(),
      account_id: key.accountId,
      key_id: key.id,
      data: {
        scope: "key",
        key_name: "test key",
        threshold: 80,
        period: "month",
        amount: 1,
        spent: 0.8,
        remaining: 0.2,
        resets_at: "2026-12-01T00:00:00.000Z",
        currency: "RUB",
        budget: 1,
        reset_at: "2026-12-01T00:00:00.000Z",
      },
    });
    // The same figures /v1/key shows.
    const view = await json(await t.fetch("/v1/key", { key: key.value }));
    expect(view.budgets).toMatchObject([{ spent: 0.8, remaining: 0.2, amount: 1 }]);
    expect(CHAT_COST).toBe(0.016);
  });

  it("re-arms in the next period: the clock moved to the next day, the same threshold is delivered again", async () => {
    receiver = await startWebhookReceiver();
    await start(alertsTo(receiver.url, ["budget.threshold"]));
    t.clock.set("2026-11-21T10:00:00.000Z");
    const key = await t.newKey({ budget: "1", period: "day" });
    const ref = { accountId: key.accountId, keyId: key.id };
    await spend(t.store, ref, 790_000);
    await chat(key.value);
    await waitUntil(() => receiver.received.length === 1, "the first day's threshold event");

    // Still the same day: no second event, however much more is spent.
    await chat(key.value);
    t.clock.set("2026-11-22T09:00:00.000Z");
    await spend(t.store, ref, 790_000);
    await chat(key.value);
    await waitUntil(() => receiver.received.length === 2, "the second day's threshold event");
    const [first, second] = receiver.received.map((r) => r.body);
    expect([first.data.threshold, second.data.threshold]).toEqual([80, 80]);
    expect([first.data.resets_at, second.data.resets_at]).toEqual([
      "2026-11-22T00:00:00.000Z",
      "2026-11-23T00:00:00.000Z",
    ]);
    expect(second.data.spent).toBe(0.806);
    expect(first.id).not.toBe(second.id);
    await waitForDelivery(t.store, key.accountId, (e) => e.id === second.id, "delivered");
    expect(receiver.received).toHaveLength(2);
  });
});

describe("delivery", () => {
  it("retries a receiver that answers 500: it gets the same event id twice, then no more", async () => {
    receiver = await startWebhookReceiver();
    receiver.answers.push(500);
    await start(alertsTo(receiver.url, ["key.created"], { firstRetrySeconds: 30 }));
    const key = await t.newKey();
    await waitUntil(() => receiver.received.length === 1, "the first attempt");
    const pending = await waitForDelivery(t.store, key.accountId, (e) => e.type === "key.created", "pending");
    const entry = (await eventsOf(t.store, key.accountId)).find((e) => e.event.id === pending.id);
    const delivery = entry?.state?.endpoints[0];
    expect(delivery).toMatchObject({ attempts: 1, status_code: 500 });
    // The retry waits for its time: up to 30 s (less a quarter at random) after the first attempt.
    expect(delivery?.next_attempt_at).toBeGreaterThan(t.clock.now() + 22_000);
    expect(delivery?.next_attempt_at).toBeLessThanOrEqual(t.clock.now() + 30_000);

    t.clock.advance(30_000);
    await waitForDelivery(t.store, key.accountId, (e) => e.id === pending.id, "delivered");
    expect(receiver.received.map((r) => r.eventId)).toEqual([pending.id, pending.id]);

    // Nothing more comes for it, even much later: a second key's event, delivered after, shows the worker ran.
    t.clock.advance(86_400_000);
    const later = await t.newKey();
    await waitForDelivery(t.store, later.accountId, (e) => e.keyId === later.id, "delivered");
    expect(receiver.received.map((r) => r.eventId)).toEqual([pending.id, pending.id, expect.any(String)]);
  });

  it("gives up 24 hours after the event, and records each attempt", async () => {
    receiver = await startWebhookReceiver();
    receiver.answers.push(...Array(100).fill(503));
    await start(alertsTo(receiver.url, ["key.created"], { firstRetrySeconds: 3600, maxRetrySeconds: 3600 }));
    const key = await t.newKey();
    for (let attempt = 1; attempt <= 30; attempt++) {
      await waitUntil(() => receiver.received.length === attempt, `attempt ${attempt}`);
      const [entry] = await eventsOf(t.store, key.accountId);
      if (entry?.status === "failed") break;
      t.clock.advance(3_600_000);
    }
    const [entry] = await eventsOf(t.store, key.accountId);
    expect(entry?.status).toBe("failed");
    const attempts = receiver.received.length;
    // Hourly attempts (each delay cut by up to a quarter) from the event on, none later than 24 h after it.
    expect(attempts).toBeGreaterThanOrEqual(24);
    expect(attempts).toBeLessThanOrEqual(33);
    expect(entry?.state?.endpoints[0]).toMatchObject({ status: "failed", attempts, status_code: 503 });
    const scrape = await (await fetch(`${t.gateway.metricsUrl}/metrics`)).text();
    expect(scrape).toMatch(/tunnel_gateway_webhook_deliveries_total\{result="failed"\} 1$/m);
    expect(scrape).toMatch(
      new RegExp(`tunnel_gateway_webhook_deliveries_total\\{result="retried"\\} ${attempts - 1}$`, "m"),
    );
  });
});

describe("balance.low", () => {
  it("re-arms after a top-up: sent when the balance falls below the mark, again only after a top-up above it", async () => {
    receiver = await startWebhookReceiver();
    await start(alertsTo(receiver.url, ["balance.low", "balance.exhausted"]));
    const key = await t.newKey({ balance: "1" });
    const mark = await admin(`/admin/v1/accounts/${key.accountId}/alerts`, {
      method: "PATCH",
      body: { low_balance: "0.5" },
    });
    expect(mark.status).toBe(200);
    expect(await json(mark)).toMatchObject({ low_balance: 0.5, currency: "RUB" });
    const ref = { accountId: key.accountId, keyId: key.id };
    await spend(t.store, ref, 490_000);
    await chat(key.value);
    await waitUntil(() => receiver.received.length === 1, "balance.low");
    expect(receiver.received[0]?.body).toMatchObject({
      type: "balance.low",
      key_id: null,
      data: { balance: 0.494, low_balance: 0.5, currency: "RUB" },
    });
    await chat(key.value);

    // A top-up that leaves the balance below the mark re-arms nothing.
    const topUp = (amount: string) =>
      admin(`/admin/v1/accounts/${key.accountId}/topups`, { method: "POST", body: { amount } });
    expect((await topUp("0.01")).status).toBe(200);
    await chat(key.value);
    expect((await topUp("1")).status).toBe(200);
    await spend(t.store, ref, 1_000_000);
    await waitUntil(() => receiver.received.length === 2, "balance.low again");
    expect(receiver.received.map((r) => r.body.type)).toEqual(["balance.low", "balance.low"]);
    expect(receiver.received[1]?.body.data.balance).toBe(0.472);
    await waitForDelivery(t.store, key.accountId, (e) => e.id === receiver.received[1]?.eventId, "delivered");
    expect(receiver.received).toHaveLength(2);
  });
});

describe("time-based events", () => {
  it("sends key.expiring 7 days and 1 day before expiry and key.expired at it, as the clock moves", async () => {
    receiver = await startWebhookReceiver();
    await start(alertsTo(receiver.url, ["key.expiring", "key.expired"]));
    const key = await t.newKey({ ttl: "30d" });
    const expiresAt = t.clock.now() + 30 * 86_400_000;
    t.clock.set(new Date(expiresAt - 7 * 86_400_000).toISOString());
    await waitUntil(() => receiver.received.length === 1, "key.expiring, 7 days before");
    t.clock.set(new Date(expiresAt).toISOString());
    await waitUntil(() => receiver.received.length === 3, "key.expiring, 1 day before, and key.expired");
    expect(receiver.received.map((r) => [r.body.type, r.body.key_id, r.body.data])).toEqual([
      [
        "key.expiring",
        key.id,
        { key_name: "test key", expires_at: new Date(expiresAt).toISOString(), days_left: 7 },
      ],
      [
        "key.expiring",
        key.id,
        { key_name: "test key", expires_at: new Date(expiresAt).toISOString(), days_left: 1 },
      ],
      ["key.expired", key.id, { key_name: "test key", expires_at: new Date(expiresAt).toISOString() }],
    ]);
    expect((await t.fetch("/v1/key", { key: key.value })).status).toBe(401);
  });
});

describe("an account's own webhook", () => {
  it("is set by its owner with a secret shown once, receives the account's events, and takes a test event", async () => {
    receiver = await startWebhookReceiver();
    await start({ allowHttp: true, allowPrivateNetworks: true, delivery: { pollIntervalMs: 20 } });
    await t.store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
    const { token } = await t.store.accountService.createToken("acme", ACTOR);
    const owner = (path: string, init: { method?: string; body?: unknown } = {}) =>
      fetch(`${t.gateway.adminUrl}${path}`, {
        method: init.method ?? "GET",
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.body !== undefined && { "content-type": "application/json" }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    const set = await owner("/admin/v1/accounts/acme/webhook", {
      method: "PUT",
      body: { url: receiver.url },
    });
    expect(set.status).toBe(200);
    const { secret, webhook } = await json(set);
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(webhook).toEqual({
      url: receiver.url,
      events: null,
      secret_hint: secret.slice(-4),
      created_at: new Date(t.clock.now()).toISOString(),
    });
    const shown = await json(await owner("/admin/v1/accounts/acme/alerts"));
    expect(JSON.stringify(shown)).not.toContain(secret);
    expect(shown.webhook.secret_hint).toBe(secret.slice(-4));

    const tested = await json(await owner("/admin/v1/accounts/acme/webhook/test", { method: "POST" }));
    expect(tested).toMatchObject({ delivered: true, status_code: 200, error: null });
    expect(receiver.received[0]?.body).toMatchObject({
      id: tested.event_id,
      type: "webhook.test",
      account_id: "acme",
      key_id: null,
    });
    const verify = await documentedVerify();
    expect(
      verify(secret, receiver.received[0]?.signature as string, receiver.received[0]?.raw as string, {
        now: t.clock.now(),
      }),
    ).toBe(true);

    const key = await t.newKey({ accountId: "acme" });
    await waitUntil(() => receiver.received.length === 2, "key.created");
    expect(receiver.received[1]?.body).toMatchObject({
      type: "key.created",
      key_id: key.id,
      account_id: "acme",
    });
    const listed = await json(await owner("/admin/v1/accounts/acme/events"));
    await waitForDelivery(t.store, "acme", (e) => e.type === "key.created", "delivered");
    const events = (await json(await owner("/admin/v1/accounts/acme/events"))).events;
    expect(listed.events[0]).toMatchObject({ id: receiver.received[1]?.eventId, type: "key.created" });
    expect(events[0]).toMatchObject({
      status: "delivered",
      deliveries: [
        { endpoint: "account", kind: "account", status: "delivered", attempts: 1, status_code: 200 },
      ],
    });

    // Removed, the account's events go nowhere, and the test has nothing to send to.
    expect(await json(await owner("/admin/v1/accounts/acme/webhook", { method: "DELETE" }))).toEqual({
      removed: true,
    });
    expect((await owner("/admin/v1/accounts/acme/webhook/test", { method: "POST" })).status).toBe(400);
    // The audit log names the origin, never the secret or the path.
    const audit = JSON.stringify(await json(await owner("/admin/v1/accounts/acme/audit")));
    expect(audit).toContain("account.webhook.set");
    expect(audit).not.toContain(secret);
    expect(audit).not.toContain("/hooks/tunnel");
    // Neither do the log lines.
    expect(JSON.stringify(t.logs)).not.toContain(secret);
  });

  it("refuses http:// without alerts.allowHttp, and private addresses without alerts.allowPrivateNetworks", async () => {
    receiver = await startWebhookReceiver();
    await start({ delivery: { pollIntervalMs: 20 } });
    await t.store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
    const refused = await admin("/admin/v1/accounts/acme/webhook", {
      method: "PUT",
      body: { url: receiver.url },
    });
    expect(refused.status).toBe(400);
    expect((await json(refused)).error.message).toBe(
      "url must be an https:// URL (http:// needs alerts.allowHttp)",
    );
    await t.close();

    await start({ allowHttp: true, delivery: { pollIntervalMs: 20 } });
    await t.store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
    expect(
      (await admin("/admin/v1/accounts/acme/webhook", { method: "PUT", body: { url: receiver.url } })).status,
    ).toBe(200);
    const tested = await json(await admin("/admin/v1/accounts/acme/webhook/test", { method: "POST" }));
    expect(tested).toMatchObject({ delivered: false, status_code: null });
    expect(tested.error).toMatch(/127\.0\.0\.1 is not a public address/);
    expect(receiver.received).toHaveLength(0);
  });
});

describe("metrics", () => {
  it("count events by type once and deliveries by result, and show the age of the oldest undelivered event", async () => {
    receiver = await startWebhookReceiver();
    await receiver.down();
    await start(alertsTo(receiver.url, ["key.created"], { firstRetrySeconds: 60 }));
    const key = await t.newKey();
    await waitForDelivery(t.store, key.accountId, (e) => e.type === "key.created", "pending");
    t.clock.advance(45_000);
    const scrape = async () => (await fetch(`${t.gateway.metricsUrl}/metrics`)).text();
    const first = await scrape();
    expect(first).toMatch(/^tunnel_gateway_alert_events_total\{type="key.created"\} 1$/m);
    expect(first).toMatch(/^tunnel_gateway_alert_events_total\{type="budget.threshold"\} 0$/m);
    expect(first).toMatch(/^tunnel_gateway_webhook_deliveries_total\{result="retried"\} 1$/m);
    expect(first).toMatch(/^tunnel_gateway_alert_oldest_undelivered_age_seconds 45$/m);

    await receiver.up();
    t.clock.advance(60_000);
    await waitForDelivery(t.store, key.accountId, (e) => e.type === "key.created", "delivered");
    const second = await scrape();
    expect(second).toMatch(/^tunnel_gateway_webhook_deliveries_total\{result="delivered"\} 1$/m);
    expect(second).toMatch(/^tunnel_gateway_alert_oldest_undelivered_age_seconds 0$/m);
    expect(second).toMatch(/^tunnel_gateway_alert_events_total\{type="key.created"\} 1$/m);
  });

  it("keep the age of an event whose account a worker is working on (its hint is away meanwhile)", async () => {
    receiver = await startWebhookReceiver();
    receiver.hang();
    await start(alertsTo(receiver.url, ["key.created"]));
    await t.newKey();
    // The worker has taken the account's hint away and waits for the receiver's answer.
    await waitUntil(() => receiver?.received.length === 1, "the attempt in flight");
    t.clock.advance(30_000);
    const scrape = await (await fetch(`${t.gateway.metricsUrl}/metrics`)).text();
    expect(scrape).toMatch(/^tunnel_gateway_alert_oldest_undelivered_age_seconds 30$/m);
  });
});
