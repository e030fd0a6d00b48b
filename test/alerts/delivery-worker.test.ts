// The delivery worker (alerts/delivery-worker.ts) on the suite's Redis with real webhook receivers and an
// injected clock: which endpoints an event goes to (the operator's that take its type, the account's own),
// each endpoint delivered on its own — a failed one retried when its time comes on the clock, given up after
// the give-up time, abandoned when it is removed — what it counts and logs, the sweep that finds work whose
// hint was lost, and the age of the oldest undelivered event. The policy's arithmetic is
// test/alerts/delivery-plan.test.ts's.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AttemptResult } from "../../src/alerts/delivery-plan.js";
import { type DeliverySettings, DeliveryWorker } from "../../src/alerts/delivery-worker.js";
import type { Endpoint } from "../../src/alerts/endpoints.js";
import { signature } from "../../src/alerts/signing.js";
import { AlertService } from "../../src/services/alerts.js";
import { ACTOR } from "../helpers/actor.js";
import { eventsOf, spend } from "../helpers/alerts.js";
import { type CapturedLogs, captureLogs } from "../helpers/logs.js";
import { openStore, type TestStore } from "../helpers/store.js";
import { waitUntil } from "../helpers/wait.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

const SECRET = "whsec_operator_secret_0123456789";
const SETTINGS: DeliverySettings = {
  pollIntervalMs: 10,
  sweepIntervalMs: 60_000,
  timezone: "UTC",
  firstRetryMs: 1000,
  maxRetryMs: 10_000,
  giveUpMs: 60_000,
  timeoutMs: 2000,
  allowPrivateNetworks: true,
  userAgent: "tunnel-gateway-webhooks/test",
};

let store: TestStore;
let ops: WebhookReceiver;
let own: WebhookReceiver;
let logs: CapturedLogs;
let counted: { events: string[]; deliveries: AttemptResult[] };
let worker: DeliveryWorker | undefined;

beforeEach(async () => {
  store = await openStore();
  ops = await startWebhookReceiver("/ops");
  own = await startWebhookReceiver("/own");
  logs = captureLogs();
  counted = { events: [], deliveries: [] };
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await Promise.all([ops.close(), own.close()]);
  store.close();
});

const operator = (id: string, url: string, events: string[] | null): Endpoint => ({
  id,
  kind: "operator",
  url,
  secret: SECRET,
  events,
});

function startWorker(
  operatorEndpoints: Endpoint[],
  settings: Partial<DeliverySettings> = {},
): DeliveryWorker {
  worker = new DeliveryWorker({
    events: store.stores.events,
    alertSettings: store.stores.alertSettings,
    accounts: store.accounts,
    operatorEndpoints,
    settings: { ...SETTINGS, ...settings },
    metrics: {
      alertEvent: (type) => counted.events.push(type),
      webhookDelivery: (result) => counted.deliveries.push(result),
    },
    logger: logs.logger,
    now: store.clock.now,
  });
  worker.start();
  return worker;
}

const alerts = () => new AlertService(store.stores, { allowHttp: true, thresholds: [80] });

/** The account's own webhook, for balance.low only; its secret. */
async function ownWebhook(): Promise<string> {
  return (await alerts().setWebhook("acme", { url: own.url, events: ["balance.low"] }, ACTOR)).secret;
}

/** A balance.low event of acme (60 ₽ of 100 spent, the mark at 50), its work hinted as the scripts' callers do. */
async function lowBalance(hint = true): Promise<void> {
  await alerts().setLowBalance("acme", 50, ACTOR);
  const { record } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
  await spend(store, { accountId: "acme", keyId: record.id }, 60_000_000);
  if (hint) await store.stores.events.markForWork("acme");
  else await store.stores.events.unmark("acme");
}

async function lowBalanceEvent() {
  return (await eventsOf(store, "acme")).find(({ event }) => event.type === "balance.low");
}

async function waitForStatus(status: string): Promise<void> {
  await waitUntil(async () => (await lowBalanceEvent())?.status === status, `balance.low to be ${status}`);
}

/** The other replica holds the sweep: only hints bring this worker to an account. */
const sweepHeldElsewhere = () => store.stores.events.claimSweep("other-replica", 60_000);

describe("DeliveryWorker", () => {
  it("sends an event to each operator endpoint that takes its type and to the account's own, signed by each", async () => {
    const ownSecret = await ownWebhook();
    await sweepHeldElsewhere();
    await lowBalance();
    const elsewhere = await startWebhookReceiver("/elsewhere");
    try {
      startWorker([
        operator("op_low", ops.url, ["balance.low"]),
        operator("op_budget", elsewhere.url, ["budget.threshold"]),
      ]);
      await waitForStatus("delivered");
      expect(elsewhere.received).toEqual([]);
    } finally {
      await elsewhere.close();
    }
    const event = (await lowBalanceEvent())?.event;
    for (const [receiver, secret] of [
      [ops, SECRET],
      [own, ownSecret],
    ] as const) {
      expect(receiver.received).toHaveLength(1);
      const [received] = receiver.received;
      expect(received?.body).toEqual({
        id: event?.id,
        type: "balance.low",
        created_at: new Date(store.clock.now()).toISOString(),
        account_id: "acme",
        key_id: null,
        data: { balance: 40, low_balance: 50, currency: "RUB" },
      });
      expect(received?.headers["user-agent"]).toBe(SETTINGS.userAgent);
      const t = Math.floor(store.clock.now() / 1000);
      expect(received?.signature).toBe(signature(secret, received?.raw ?? "", t));
    }
    expect((await lowBalanceEvent())?.state?.endpoints.map((d) => [d.endpoint, d.status, d.origin])).toEqual([
      ["op_low", "delivered", new URL(ops.url).origin],
      ["account", "delivered", new URL(own.url).origin],
    ]);
    expect(counted.events).toContain("balance.low");
    expect(counted.events.filter((type) => type === "balance.low")).toHaveLength(1);
    expect(counted.deliveries).toEqual(["delivered", "delivered"]);
    expect(logs.messages().filter((message) => message === "webhook delivered")).toHaveLength(2);
  });

  it("retries only the endpoint that failed, once its time has come on the clock", async () => {
    await ownWebhook();
    await sweepHeldElsewhere();
    own.answers.push(503);
    await lowBalance();
    startWorker([operator("op_low", ops.url, ["balance.low"])]);
    await waitUntil(async () => counted.deliveries.length === 2, "the first round of attempts");
    expect([...counted.deliveries].sort()).toEqual(["delivered", "retried"]);
    const account = (await lowBalanceEvent())?.state?.endpoints.find((d) => d.endpoint === "account");
    expect(account).toMatchObject({ status: "pending", attempts: 1, status_code: 503 });
    const retryAt = account?.next_attempt_at as number;
    expect(retryAt - store.clock.now()).toBeGreaterThanOrEqual(750);
    expect(retryAt - store.clock.now()).toBeLessThanOrEqual(1000);
    expect(logs.lines.find((line) => line.msg === "webhook delivery failed; will retry")).toMatchObject({
      endpoint: "account",
      status_code: 503,
      next_attempt_at: retryAt,
    });

    store.clock.ms = retryAt;
    await waitForStatus("delivered");
    expect(own.received).toHaveLength(2);
    expect(ops.received).toHaveLength(1);
    expect(counted.deliveries.at(-1)).toBe("delivered");
  });

  it("gives a delivery up when its next attempt would come after the give-up time, logging an error", async () => {
    await ownWebhook();
    await sweepHeldElsewhere();
    own.answers.push(500);
    await lowBalance();
    startWorker([], { giveUpMs: 500 });
    await waitForStatus("failed");
    expect(counted.deliveries).toEqual(["failed"]);
    expect(logs.lines.find((line) => line.msg === "webhook delivery failed; giving up")).toMatchObject({
      level: 50,
      endpoint: "account",
      status_code: 500,
    });
  });

  it("abandons a retry whose endpoint was removed meanwhile, sending nothing more", async () => {
    await ownWebhook();
    await sweepHeldElsewhere();
    own.answers.push(500);
    await lowBalance();
    startWorker([]);
    await waitUntil(async () => counted.deliveries.length === 1, "the first attempt");
    await alerts().removeWebhook("acme", ACTOR);
    store.clock.advance(SETTINGS.firstRetryMs);
    await waitForStatus("failed");
    expect((await lowBalanceEvent())?.state?.endpoints[0]).toMatchObject({
      status: "failed",
      error: "the endpoint was removed",
    });
    expect(counted.deliveries).toEqual(["retried", "failed"]);
    expect(own.received).toHaveLength(1);
  });

  it("finds an account's events whose hint was lost, by its sweep", async () => {
    await ownWebhook();
    await lowBalance(false);
    expect(await store.stores.events.accountsWithWork(store.clock.now(), 10)).toEqual([]);
    startWorker([]);
    await waitForStatus("delivered");
  });

  it("reports the age of the oldest undelivered event on its clock, none once delivered", async () => {
    await ownWebhook();
    await sweepHeldElsewhere();
    own.answers.push(500);
    await lowBalance();
    const started = store.clock.now();
    const running = startWorker([]);
    await waitUntil(async () => counted.deliveries.length === 1, "the first attempt");
    // Before its retry is due (750 ms at the earliest): the event waits, half a second old on the clock.
    store.clock.ms = started + 500;
    expect(await running.oldestUndeliveredAgeSeconds()).toBe(0.5);
    store.clock.ms = started + SETTINGS.firstRetryMs;
    await waitForStatus("delivered");
    expect(await running.oldestUndeliveredAgeSeconds()).toBe(0);
  });

  it("sends test events as it sends webhooks: the same timeout, networks and user agent", () => {
    expect(startWorker([]).sender).toEqual({
      timeoutMs: SETTINGS.timeoutMs,
      allowPrivateNetworks: true,
      userAgent: SETTINGS.userAgent,
    });
  });
});
