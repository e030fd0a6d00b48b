// The admin API's alert routes (admin/alert-routes.ts, their bodies and answers in admin/alert-schemas.ts)
// through the real admin listener over HTTP, with a real webhook receiver: the operator's webhooks and
// thresholds, an account's low-balance mark and own webhook (its secret in the answer that sets it only),
// test events, and the account's events — each route's status, its validation errors naming the field, and
// who may reach it.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, type AdminApi, startAdminApi } from "../helpers/admin-api.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

let api: AdminApi;
let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await startWebhookReceiver();
  api = await startAdminApi({
    alerts: {
      operatorEndpoints: [
        {
          id: "op_ops",
          kind: "operator",
          url: receiver.url,
          secret: "whsec_operator_0123456789",
          events: ["balance.low"],
        },
      ],
      sender: { timeoutMs: 5000, allowPrivateNetworks: true, userAgent: "tunnel-gateway/test" },
    },
  });
});
afterEach(async () => {
  await api.close();
  await receiver.close();
});

describe("the operator's webhooks", () => {
  it("are listed with the default thresholds to an operator, not to an account's token", async () => {
    const listed = await api.call("GET", "/admin/v1/alerts");
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      thresholds: [80, 95, 100],
      webhooks: [{ id: "op_ops", url: receiver.url, events: ["balance.low"] }],
    });
    expect((await api.call("GET", "/admin/v1/alerts", { as: api.acmeToken })).status).toBe(403);
  });

  it("are sent a test event by id; an unknown id answers 404, an account's token 403", async () => {
    const sent = await api.call("POST", "/admin/v1/alerts/webhooks/op_ops/test");
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ delivered: true, status_code: 200, error: null });
    expect(receiver.received.map((r) => r.eventId)).toEqual([sent.body.event_id]);
    expect((await api.call("POST", "/admin/v1/alerts/webhooks/op_x/test")).status).toBe(404);
    expect(
      (await api.call("POST", "/admin/v1/alerts/webhooks/op_ops/test", { as: api.acmeToken })).status,
    ).toBe(403);
    expect(receiver.received).toHaveLength(1);
  });
});

describe("an account's alert settings", () => {
  it("are shown to the account and changed by its owner: the mark in rubles, null removing it", async () => {
    const shown = await api.call("GET", "/admin/v1/accounts/acme/alerts", { as: api.acmeToken });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      account_id: "acme",
      low_balance: null,
      webhook: null,
      default_thresholds: [80, 95, 100],
    });
    const set = await api.call("PATCH", "/admin/v1/accounts/acme/alerts", {
      as: api.acmeToken,
      body: { low_balance: "12.5" },
    });
    expect(set.status).toBe(200);
    expect(set.body.low_balance).toBe(12.5);
    const cleared = await api.call("PATCH", "/admin/v1/accounts/acme/alerts", {
      body: { low_balance: null },
    });
    expect(cleared.body.low_balance).toBeNull();
  });

  it("refuse a missing or wrongly typed mark and a non-positive one, naming low_balance", async () => {
    for (const body of [{}, { low_balance: true }, { low_balance: 0 }, { low_balance: 5, extra: 1 }]) {
      const refused = await api.call("PATCH", "/admin/v1/accounts/acme/alerts", { body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.message, JSON.stringify(body)).toMatch(/low_balance|unknown field extra/);
    }
  });

  it("are not another account's to read or change", async () => {
    expect((await api.call("GET", "/admin/v1/accounts/other/alerts", { as: api.acmeToken })).status).toBe(
      403,
    );
    const change = await api.call("PATCH", "/admin/v1/accounts/other/alerts", {
      as: api.acmeToken,
      body: { low_balance: 1 },
    });
    expect(change.status).toBe(403);
    expect((await api.call("GET", "/admin/v1/accounts/other/alerts")).body.low_balance).toBeNull();
  });
});

describe("an account's webhook", () => {
  it("is set with its secret in that answer only, tested, and removed", async () => {
    const set = await api.call("PUT", "/admin/v1/accounts/acme/webhook", {
      as: api.acmeToken,
      body: { url: receiver.url, events: ["balance.low"] },
    });
    expect(set.status).toBe(200);
    expect(set.body.secret).toMatch(/^whsec_/);
    expect(set.body.webhook).toMatchObject({
      url: receiver.url,
      events: ["balance.low"],
      secret_hint: set.body.secret.slice(-4),
    });
    const shown = await api.call("GET", "/admin/v1/accounts/acme/alerts", { as: api.acmeToken });
    expect(JSON.stringify(shown.body)).not.toContain(set.body.secret);

    const tested = await api.call("POST", "/admin/v1/accounts/acme/webhook/test", { as: api.acmeToken });
    expect(tested.status).toBe(200);
    expect(tested.body.delivered).toBe(true);
    expect(receiver.received.at(-1)?.body.account_id).toBe("acme");

    const removed = await api.call("DELETE", "/admin/v1/accounts/acme/webhook", { as: api.acmeToken });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ removed: true });
    expect((await api.call("DELETE", "/admin/v1/accounts/acme/webhook")).body).toEqual({ removed: false });
  });

  it("refuses an unknown event type and a bad URL naming the field, and a test without a webhook", async () => {
    const events = await api.call("PUT", "/admin/v1/accounts/acme/webhook", {
      body: { url: receiver.url, events: ["nope"] },
    });
    expect(events.status).toBe(400);
    expect(events.body.error.message).toMatch(/^Invalid body: events\.0: /);
    const url = await api.call("PUT", "/admin/v1/accounts/acme/webhook", {
      body: { url: "ftp://x.example/" },
    });
    expect(url.status).toBe(400);
    expect(url.body.error.message).toMatch(/^url must be/);
    const missing = await api.call("PUT", "/admin/v1/accounts/acme/webhook", { body: {} });
    expect(missing.body.error.message).toMatch(/^Invalid body: url: /);
    const test = await api.call("POST", "/admin/v1/accounts/acme/webhook/test");
    expect(test.status).toBe(400);
    expect(test.body.error.message).toBe("account acme has no webhook to test: set one first");
  });

  it("is not another account's to set, test or remove", async () => {
    const as = api.acmeToken;
    expect(
      (await api.call("PUT", "/admin/v1/accounts/other/webhook", { as, body: { url: receiver.url } })).status,
    ).toBe(403);
    expect((await api.call("POST", "/admin/v1/accounts/other/webhook/test", { as })).status).toBe(403);
    expect((await api.call("DELETE", "/admin/v1/accounts/other/webhook", { as })).status).toBe(403);
  });
});

describe("GET /admin/v1/accounts/{accountId}/events", () => {
  it("lists the account's events newest first, as many as asked, to the account", async () => {
    await api.store.keyService.create({ accountId: "acme", name: "k1" }, { kind: "cli" });
    await api.store.keyService.create({ accountId: "acme", name: "k2" }, { kind: "cli" });
    const all = await api.call("GET", "/admin/v1/accounts/acme/events", { as: api.acmeToken });
    expect(all.status).toBe(200);
    expect(all.body.events.map((event: { type: string }) => event.type)).toEqual([
      "key.created",
      "key.created",
    ]);
    const one = await api.call("GET", "/admin/v1/accounts/acme/events?limit=1", { as: api.acmeToken });
    expect(one.body.events).toEqual([all.body.events[0]]);
    const bad = await api.call("GET", "/admin/v1/accounts/acme/events?limit=x");
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe("Invalid query: limit: must be a whole number from 1 on.");
    expect((await api.call("GET", "/admin/v1/accounts/other/events", { as: api.acmeToken })).status).toBe(
      403,
    );
  });

  it("shows the operator's deliveries to operators only, the account's own to the account", async () => {
    const { store } = api;
    await store.keyService.create({ accountId: "acme", name: "k" }, { kind: "cli" });
    const now = store.clock.now();
    const [claimed] = await store.stores.events.claim("acme", "worker", now, 60_000, 1);
    if (claimed === undefined) throw new Error("no event to claim");
    const delivery = (endpoint: string, kind: string) => ({
      endpoint,
      kind,
      origin: "https://hooks.example",
      status: "delivered",
      attempts: 1,
      status_code: 200,
      error: null,
      last_attempt_at: now,
      next_attempt_at: null,
      delivered_at: now,
    });
    const state = { endpoints: [delivery("op_ops", "operator"), delivery("account", "account")] };
    await store.stores.events.finish("acme", claimed, JSON.stringify(state), null);
    const endpoints = async (as: string) =>
      (await api.call("GET", "/admin/v1/accounts/acme/events", { as })).body.events[0].deliveries.map(
        (d: { endpoint: string }) => d.endpoint,
      );
    expect(await endpoints(api.acmeToken)).toEqual(["account"]);
    expect(await endpoints(ADMIN_TOKEN)).toEqual(["op_ops", "account"]);
  });
});
