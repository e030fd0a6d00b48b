// The model server's places shared by several gateway replicas (upstream.sharedInFlight) through the suite's
// Redis: together they never give it more than upstream.maxInFlight, each gets its part, and a replica killed
// with a full queue leaves nothing behind once its reservations and its places have expired.

import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, inject, it } from "vitest";
import { ACTOR } from "../helpers/actor.js";
import { type BusyModelServer, startBusyModelServer } from "../helpers/busy-model-server.js";
import { RealClock, TestClock } from "../helpers/clock.js";
import { PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type GatewayProcess, spawnGateway } from "../helpers/gateway-process.js";
import { openStore, type TestStore, testPrefix } from "../helpers/store.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

const BODY = JSON.stringify({
  model: "demo-small",
  max_tokens: 5,
  messages: [{ role: "user", content: "hi" }],
});

const gateways: TestGateway[] = [];
let busy: BusyModelServer | undefined;
let stub: StubUpstream | undefined;
let replica: GatewayProcess | undefined;
let store: TestStore | undefined;

afterEach(async () => {
  await replica?.stop("SIGKILL");
  for (const gateway of gateways.splice(0)) await gateway.close();
  await busy?.close();
  await stub?.close();
  store?.close();
  busy = stub = replica = store = undefined;
});

describe("places shared by replicas", () => {
  it("never gives the model server more than maxInFlight across two replicas, and each replica its part", async () => {
    busy = await startBusyModelServer({ capacity: 100, serviceMs: 40 });
    const config = { pricing: PRICING, upstream: { maxInFlight: 4, sharedInFlight: true } };
    const first = await startTestGateway({ upstreamUrl: busy.url, clock: new RealClock(), config });
    gateways.push(first);
    const second = await startTestGateway({
      upstreamUrl: busy.url,
      clock: new RealClock(),
      config: { ...config, redis: { prefix: first.config.redis.prefix } },
    });
    gateways.push(second);
    const key = await first.newKey({ balance: "100000" });
    const until = performance.now() + 1500;
    const flood = (gateway: TestGateway, tenant: string) =>
      Promise.all(
        Array.from({ length: 12 }, async () => {
          while (performance.now() < until) {
            const body = JSON.stringify({ ...JSON.parse(BODY), user: tenant });
            const res = await gateway.fetch("/v1/chat/completions", { method: "POST", key: key.value, body });
            await res.arrayBuffer();
            expect(res.status).toBe(200);
          }
        }),
      );
    await Promise.all([flood(first, "first"), flood(second, "second")]);
    expect(busy.mostRunning).toBeLessThanOrEqual(4);
    expect(busy.mostRunning).toBeGreaterThanOrEqual(3);
    const fromFirst = busy.started.filter((start) => start.tenant === "first").length;
    const fromSecond = busy.started.length - fromFirst;
    // Equal demand, equal parts (two places each), within what a loaded machine's timing moves.
    expect(fromFirst / busy.started.length).toBeGreaterThan(0.3);
    expect(fromSecond / busy.started.length).toBeGreaterThan(0.3);
  });

  it("leaves nothing reserved, and its places free, once the reservations of a replica killed with a full queue expire", async () => {
    stub = await startStubUpstream();
    // The model server takes the first request and never answers it: the replica's queue fills behind it.
    let taken = 0;
    stub.handle(async (req) => {
      if (req.method !== "POST") return false;
      taken++;
      await new Promise(() => {});
      return true;
    });
    const prefix = testPrefix();
    store = await openStore({ prefix });
    await store.accountService.create({ id: "acme", balance: "1000" }, ACTOR);
    const { value, record } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    const ttlSeconds = 10;
    replica = await spawnGateway({
      pricing: PRICING,
      upstream: { url: stub.url, maxInFlight: 1, sharedInFlight: true },
      billing: { reservationTtlSeconds: ttlSeconds },
      redis: { url: inject("redisUrl"), prefix },
    });
    const base = replica.url;
    for (let i = 0; i < 6; i++) {
      const req = httpRequest(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${value}`, "content-type": "application/json" },
      });
      req.on("error", () => {});
      req.end(BODY);
    }
    const metrics = replica.metricsUrl as string;
    // The first request leaves the queue before it reaches the model server: wait for both, not the queue alone.
    await waitUntil(async () => {
      if (taken < 1) return false;
      const text = await (await fetch(`${metrics}/metrics`)).text();
      return /^tunnel_gateway_queue_requests\{account="acme"\} 5$/m.test(text);
    }, "one request at the model server and five waiting on the replica");
    expect(taken).toBe(1);
    expect((await store.billing.reserved("acme")).account).toBeGreaterThan(0);
    expect(await store.redis.hlen(store.redisKeys.upstreamSlots().held)).toBe(1);
    await replica.stop("SIGKILL");
    replica = undefined;

    // Another replica, its clock past the reservations' expiry and the dead replica's count's.
    const clock = new TestClock(Date.now() + 16_000);
    busy = await startBusyModelServer({ capacity: 1, serviceMs: 1 });
    const survivor = await startTestGateway({
      upstreamUrl: busy.url,
      clock,
      config: {
        pricing: PRICING,
        upstream: { maxInFlight: 1, sharedInFlight: true },
        queue: { maxWaitMs: 2000 },
        redis: { prefix },
      },
    });
    gateways.push(survivor);
    const res = await survivor.fetch("/v1/chat/completions", { method: "POST", key: value, body: BODY });
    expect(res.status).toBe(200);
    await res.text();
    await survivor.gateway.settled();
    const line = survivor.logs.find((entry) => entry.msg === "request") as Record<string, any>;
    const cost = Math.round(Number(line.cost_rub) * 1_000_000);
    expect((await store.billing.reserved("acme")).account).toBe(0);
    expect((await store.accounts.require("acme")).balance).toBe(1000_000_000 - cost);
    expect((await store.keys.get({ accountId: "acme", keyId: record.id }))?.spent).toBe(cost);
    // The dead replica's place was forgotten; the survivor gives its own back as its request ends.
    const held = store.redisKeys.upstreamSlots().held;
    await waitUntil(async () => (await (store as TestStore).redis.hlen(held)) === 0, "no place held");
  });
});
