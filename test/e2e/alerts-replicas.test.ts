// Alert delivery across replicas: an in-process gateway and `dist/cli.js serve` processes sharing one Redis, a
// real receiver. Each event is delivered once however many replicas run, and an event survives the replica
// that held it being killed. `npm test` builds dist/ first.

import { afterEach, describe, expect, inject, it } from "vitest";
import { ACTOR } from "../helpers/actor.js";
import { alertsTo, eventsOf, spend, WEBHOOK_ENV, waitForDelivery } from "../helpers/alerts.js";
import { RealClock, TestClock } from "../helpers/clock.js";
import { PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type GatewayProcess, spawnGateway } from "../helpers/gateway-process.js";
import { openStore, type TestStore, testPrefix } from "../helpers/store.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

let t: TestGateway | undefined;
let upstream: StubUpstream | undefined;
let receiver: WebhookReceiver;
let store: TestStore | undefined;
const processes: GatewayProcess[] = [];

afterEach(async () => {
  for (const child of processes.splice(0)) await child.stop("SIGKILL");
  await t?.close();
  t = undefined;
  store?.close();
  store = undefined;
  await upstream?.close();
  upstream = undefined;
  await receiver?.close();
});

function serve(prefix: string, alerts: Record<string, unknown>, upstreamUrl = "http://127.0.0.1:9") {
  return spawnGateway(
    {
      pricing: PRICING,
      upstream: { url: upstreamUrl },
      redis: { url: inject("redisUrl"), prefix },
      alerts,
    },
    WEBHOOK_ENV,
  ).then((child) => {
    processes.push(child);
    return child;
  });
}

function chat(base: string, key: string): Promise<number> {
  return fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "demo-small",
      max_tokens: 6,
      messages: [{ role: "user", content: "one two three four" }],
    }),
  }).then(async (res) => {
    await res.arrayBuffer();
    return res.status;
  });
}

describe("two replicas", () => {
  it("deliver a threshold crossed by a burst of 100 parallel requests through both exactly once", async () => {
    receiver = await startWebhookReceiver();
    upstream = await startStubUpstream({ tokenIntervalMs: 2 });
    const alerts = alertsTo(receiver.url, ["budget.threshold"]);
    // Both gateways judge reservations' expiry, and the workers leases, by the same clock: the real one.
    t = await startTestGateway({
      upstreamUrl: upstream.url,
      clock: new RealClock(),
      config: { pricing: PRICING, alerts },
      env: WEBHOOK_ENV,
    });
    const second = await serve(t.config.redis.prefix, alerts, upstream.url);
    const key = await t.newKey({ budget: "20" });
    // 15.99 ₽ spent: the first of the burst's requests (0.016 ₽ each) to settle takes it past 80 %, and all of
    // them together (1.6 ₽) stay short of 95 %.
    await spend(t.store, { accountId: key.accountId, keyId: key.id }, 15_990_000);
    const bases = [t.url, second.url];
    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => chat(bases[i % 2] as string, key.value)),
    );
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(10);

    const event = await waitForDelivery(
      t.store,
      key.accountId,
      (e) => e.type === "budget.threshold",
      "delivered",
    );
    // Whatever either replica still had in flight is over once the second has stopped and the first settled.
    expect(await second.stop()).toBe(0);
    await t.gateway.settled();
    expect(receiver.received.map((r) => [r.eventId, r.body.type, r.body.data.threshold])).toEqual([
      [event.id, "budget.threshold", 80],
    ]);
    const delivered = [...t.logs, ...second.logs].filter((line) => line.msg === "webhook delivered");
    expect(delivered.map((line) => line.event_id)).toEqual([event.id]);
    expect(
      (await eventsOf(t.store, key.accountId)).filter((e) => e.event.type === "budget.threshold"),
    ).toHaveLength(1);
  });
});

describe("a replica killed", () => {
  it("while the receiver is down: the event still reaches the receiver after the replica is restarted", async () => {
    receiver = await startWebhookReceiver();
    await receiver.down();
    const prefix = testPrefix();
    const alerts = alertsTo(receiver.url, ["key.created"], {
      timeoutMs: 500,
      firstRetrySeconds: 1,
      maxRetrySeconds: 1,
      pollIntervalMs: 50,
    });
    const first = await serve(prefix, alerts);
    store = await openStore({ prefix, clock: new RealClock() });
    await store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
    const { record } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    const failed = await waitForDelivery(store, "acme", (e) => e.keyId === record.id, "pending");
    const [entry] = await eventsOf(store, "acme");
    expect(entry?.state?.endpoints[0]?.error).toMatch(/ECONNREFUSED/);

    await first.stop("SIGKILL");
    await receiver.up();
    await serve(prefix, alerts);
    await waitForDelivery(store, "acme", (e) => e.id === failed.id, "delivered", 20_000);
    expect(receiver.received.map((r) => [r.eventId, r.body.type, r.body.key_id])).toEqual([
      [failed.id, "key.created", record.id],
    ]);
  });

  it("in the middle of a delivery: another replica takes the event over once the lease has run out", async () => {
    receiver = await startWebhookReceiver();
    receiver.hang();
    const prefix = testPrefix();
    const alerts = alertsTo(receiver.url, ["key.created"], { timeoutMs: 2000, pollIntervalMs: 50 });
    const first = await serve(prefix, alerts);
    store = await openStore({ prefix, clock: new RealClock() });
    await store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
    await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    await waitUntil(() => receiver.received.length === 1, "the first replica's attempt to arrive");
    await first.stop("SIGKILL");
    await receiver.down();
    await receiver.up();

    // The other replica's clock is a minute ahead: past the lease (2 × 2 s + 10 s), which it waits out.
    t = await startTestGateway({
      clock: new TestClock(Date.now() + 60_000),
      config: { redis: { prefix }, alerts },
      env: WEBHOOK_ENV,
    });
    const event = await waitForDelivery(store, "acme", (e) => e.type === "key.created", "delivered", 20_000);
    expect(receiver.received.map((r) => r.eventId)).toEqual([event.id, event.id]);
    const [entry] = await eventsOf(store, "acme");
    // The killed replica's attempt was never recorded: one attempt, the one that answered.
    expect(entry?.state?.endpoints[0]).toMatchObject({ status: "delivered", attempts: 1, status_code: 200 });
  });
});
