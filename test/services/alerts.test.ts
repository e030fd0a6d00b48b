// The alert service (services/alerts.ts) on the suite's Redis, with a real webhook receiver: an account's
// low-balance mark and own webhook set, shown and removed (each refusal naming its field, each change
// audited, the secret returned once), the test events it sends and the refusals where none can be sent, and
// the events listed with their deliveries — an account owner seeing only its own endpoint's.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Endpoint } from "../../src/alerts/endpoints.js";
import { type AlertOptions, AlertService } from "../../src/services/alerts.js";
import type { ClaimedEvent } from "../../src/store/accounts/event-store.js";
import { ACTOR } from "../helpers/actor.js";
import { spend } from "../helpers/alerts.js";
import { openStore, type TestStore } from "../helpers/store.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

const SENDER = { timeoutMs: 5_000, allowPrivateNetworks: true, userAgent: "tunnel-gateway/test" };

let store: TestStore;
let receiver: WebhookReceiver;
beforeEach(async () => {
  store = await openStore();
  receiver = await startWebhookReceiver();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
});
afterEach(async () => {
  store.close();
  await receiver.close();
});

function service(options: Partial<AlertOptions> = {}): AlertService {
  return new AlertService(store.stores, {
    allowHttp: true,
    thresholds: [80, 100],
    sender: SENDER,
    ...options,
  });
}

const operator = (): Endpoint => ({
  id: "op_1",
  kind: "operator",
  url: receiver.url,
  secret: "whsec_operator_secret_0123456789",
  events: ["balance.low"],
});

const auditOf = async () => (await store.accountService.audit("acme", 1))[0];

describe("show", () => {
  it("shows an account without a mark or a webhook, with the configured thresholds", async () => {
    const alerts = service();
    expect(await alerts.show("acme")).toEqual({
      account_id: "acme",
      low_balance: null,
      currency: "RUB",
      webhook: null,
      default_thresholds: [80, 100],
    });
    alerts.defaultThresholds().push(5);
    expect(alerts.defaultThresholds()).toEqual([80, 100]);
  });

  it("refuses a malformed account id and a missing account", async () => {
    await expect(service().show("Not An Id")).rejects.toMatchObject({ code: "invalid_request" });
    await expect(service().show("ghost")).rejects.toMatchObject({ code: "account_not_found" });
  });
});

describe("setLowBalance", () => {
  it("sets the mark in rubles, clears it with null, and audits each change in rubles", async () => {
    const alerts = service();
    expect((await alerts.setLowBalance("acme", "12.5", { kind: "admin" })).low_balance).toBe(12.5);
    expect(await auditOf()).toMatchObject({
      action: "account.alerts.update",
      actor: "admin",
      details: { low_balance: "12.5" },
    });
    expect((await alerts.setLowBalance("acme", null, ACTOR)).low_balance).toBeNull();
    expect((await auditOf())?.details).toEqual({ low_balance: null });
  });

  it("refuses anything but a positive amount, naming low_balance, and changes nothing", async () => {
    const alerts = service();
    await alerts.setLowBalance("acme", 5, ACTOR);
    for (const bad of [0, -1, "abc", true, {}, undefined]) {
      await expect(alerts.setLowBalance("acme", bad, ACTOR), String(bad)).rejects.toMatchObject({
        code: "invalid_request",
        message: expect.stringContaining("low_balance"),
      });
    }
    expect((await alerts.show("acme")).low_balance).toBe(5);
  });

  it("refuses a missing account with account_not_found", async () => {
    await expect(service().setLowBalance("ghost", 1, ACTOR)).rejects.toMatchObject({
      code: "account_not_found",
    });
  });
});

describe("the account's webhook", () => {
  it("is set with a new secret returned once: the view and the audit log show its hint and origin only", async () => {
    const alerts = service();
    const url = `${receiver.url}?token=in-the-path`;
    const { webhook, secret } = await alerts.setWebhook("acme", { url, events: ["balance.low"] }, ACTOR);
    expect(secret).toMatch(/^whsec_/);
    expect(webhook).toEqual({
      url,
      events: ["balance.low"],
      secret_hint: secret.slice(-4),
      created_at: new Date(store.clock.now()).toISOString(),
    });
    expect((await alerts.show("acme")).webhook).toEqual(webhook);
    const entry = await auditOf();
    expect(entry).toMatchObject({
      action: "account.webhook.set",
      details: { origin: new URL(receiver.url).origin, events: ["balance.low"] },
    });
    expect(JSON.stringify(entry)).not.toContain("in-the-path");
    expect(JSON.stringify(entry)).not.toContain(secret);
  });

  it("is replaced with a new secret, its events listed once each, or null for every type", async () => {
    const alerts = service();
    const first = await alerts.setWebhook("acme", { url: receiver.url }, ACTOR);
    expect(first.webhook.events).toBeNull();
    const second = await alerts.setWebhook(
      "acme",
      { url: receiver.url, events: ["balance.low", "key.expiring", "balance.low"] },
      ACTOR,
    );
    expect(second.secret).not.toBe(first.secret);
    expect(second.webhook.events).toEqual(["balance.low", "key.expiring"]);
  });

  it("refuses a bad URL or event list, naming the field, and a missing account", async () => {
    const alerts = service({ allowHttp: false });
    await expect(alerts.setWebhook("acme", { url: 42 }, ACTOR)).rejects.toMatchObject({
      code: "invalid_request",
      message: "url must be a URL",
    });
    await expect(alerts.setWebhook("acme", { url: receiver.url }, ACTOR)).rejects.toMatchObject({
      message: "url must be an https:// URL (http:// needs alerts.allowHttp)",
    });
    for (const events of [[], ["nope"], "balance.low"]) {
      await expect(
        alerts.setWebhook("acme", { url: "https://hooks.example/x", events }, ACTOR),
      ).rejects.toMatchObject({ message: expect.stringMatching(/^events must be a list of event types/) });
    }
    await expect(alerts.setWebhook("ghost", { url: "https://hooks.example/x" }, ACTOR)).rejects.toMatchObject(
      {
        code: "account_not_found",
      },
    );
    expect((await alerts.show("acme")).webhook).toBeNull();
  });

  it("is removed, audited, and removing none answers false", async () => {
    const alerts = service();
    await alerts.setWebhook("acme", { url: receiver.url }, ACTOR);
    expect(await alerts.removeWebhook("acme", ACTOR)).toBe(true);
    expect((await auditOf())?.action).toBe("account.webhook.remove");
    expect((await alerts.show("acme")).webhook).toBeNull();
    expect(await alerts.removeWebhook("acme", ACTOR)).toBe(false);
    await expect(alerts.removeWebhook("ghost", ACTOR)).rejects.toMatchObject({ code: "account_not_found" });
  });
});

describe("test events", () => {
  it("are sent to the account's webhook, and what came of it is told", async () => {
    const alerts = service();
    await alerts.setWebhook("acme", { url: receiver.url }, ACTOR);
    receiver.answers.push(500);
    const failed = await alerts.testWebhook("acme");
    expect(failed).toMatchObject({ delivered: false, status_code: 500 });
    const delivered = await alerts.testWebhook("acme");
    expect(delivered).toMatchObject({ delivered: true, status_code: 200, error: null });
    expect(receiver.received.map((received) => [received.eventId, received.body.account_id])).toEqual([
      [failed.event_id, "acme"],
      [delivered.event_id, "acme"],
    ]);
  });

  it("are refused for an account without a webhook, and where no sender is given (the CLI)", async () => {
    await expect(service().testWebhook("acme")).rejects.toMatchObject({
      code: "invalid_request",
      message: "account acme has no webhook to test: set one first",
    });
    await expect(service().testWebhook("ghost")).rejects.toMatchObject({ code: "account_not_found" });
    const cli = service({ sender: undefined });
    await cli.setWebhook("acme", { url: receiver.url }, ACTOR);
    await expect(cli.testWebhook("acme")).rejects.toMatchObject({
      message: "Test events are sent by a running gateway: use the admin API.",
    });
    expect(receiver.received).toEqual([]);
  });

  it("go to an operator's webhook by its id, with no account; an unknown id is not_found", async () => {
    const alerts = service({ operatorEndpoints: [operator()] });
    expect(alerts.operatorWebhooks()).toEqual([{ id: "op_1", url: receiver.url, events: ["balance.low"] }]);
    expect(service().operatorWebhooks()).toEqual([]);
    expect(await alerts.testOperatorWebhook("op_1")).toMatchObject({ delivered: true });
    expect(receiver.received[0]?.body.account_id).toBeNull();
    await expect(alerts.testOperatorWebhook("op_2")).rejects.toMatchObject({
      code: "not_found",
      message: "There is no operator webhook op_2 in the configuration.",
    });
  });
});

describe("events", () => {
  /** A balance.low event of acme: the mark at 50 ₽, 60 ₽ spent of the 100. */
  async function lowBalance(): Promise<void> {
    await service().setLowBalance("acme", 50, ACTOR);
    const { record } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    await spend(store, { accountId: "acme", keyId: record.id }, 60_000_000);
  }

  it("are queued until a worker has had them, with their data in rubles", async () => {
    await lowBalance();
    const [event] = await service().events("acme", 10, true);
    expect(event).toMatchObject({
      type: "balance.low",
      account_id: "acme",
      key_id: null,
      created_at: new Date(store.clock.now()).toISOString(),
      status: "queued",
      deliveries: [],
    });
    expect(event?.data).toMatchObject({ balance: 40, low_balance: 50 });
  });

  it("show each delivery's outcome, the operator's only to whoever may see them", async () => {
    await lowBalance();
    const now = store.clock.now();
    const claimed = (await store.stores.events.claim("acme", "worker-1", now, 60_000, 10)).find(
      ({ event }) => event.type === "balance.low",
    );
    const delivery = { attempts: 1, error: null, next_attempt_at: null, last_attempt_at: now };
    const state = {
      endpoints: [
        {
          ...delivery,
          endpoint: "op_1",
          kind: "operator",
          origin: "https://ops.example",
          status: "delivered",
          status_code: 200,
          delivered_at: now,
        },
        {
          ...delivery,
          endpoint: "account",
          kind: "account",
          origin: "https://acme.example",
          status: "failed",
          status_code: 500,
          error: "answered 500",
          delivered_at: null,
        },
      ],
    };
    expect(
      await store.stores.events.finish("acme", claimed as ClaimedEvent, JSON.stringify(state), null),
    ).toBe("done");

    const [operatorView] = await service().events("acme", 10, true);
    const at = new Date(now).toISOString();
    expect(operatorView?.deliveries).toEqual([
      {
        endpoint: "op_1",
        kind: "operator",
        origin: "https://ops.example",
        status: "delivered",
        attempts: 1,
        status_code: 200,
        error: null,
        last_attempt_at: at,
        next_attempt_at: null,
        delivered_at: at,
      },
      expect.objectContaining({
        endpoint: "account",
        status: "failed",
        error: "answered 500",
        delivered_at: null,
      }),
    ]);
    expect(operatorView?.status).not.toBe("queued");
    const [ownerView] = await service().events("acme", 10, false);
    expect(ownerView?.deliveries.map((d) => d.endpoint)).toEqual(["account"]);
    expect(ownerView?.status).toBe("failed");
  });

  it("are read newest first, at least one and at most 500, for an account that exists", async () => {
    await lowBalance();
    await service().setLowBalance("acme", 45, ACTOR);
    const { record } = await store.keyService.create({ accountId: "acme", name: "k2" }, ACTOR);
    await spend(store, { accountId: "acme", keyId: record.id }, 1_000_000);
    const all = await service().events("acme", 10, true);
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(await service().events("acme", 0, true)).toEqual(all.slice(0, 1));
    expect(await service().events("acme", -5, true)).toEqual(all.slice(0, 1));
    await expect(service().events("ghost", 10, true)).rejects.toMatchObject({ code: "account_not_found" });
  });
});
