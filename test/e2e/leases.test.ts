// Admission leases through real HTTP, with two gateway replicas on the suite's Redis: requests admitted
// without a Redis round trip on both, no overspend of a budget or a balance with 200 parallel requests once
// the leases are warm, exact reconciliation, a budget smaller than two leases, a revocation seen by the other
// replica through the change feed, the feed lost and restored, a top-up reaching a starved replica, and a
// killed replica's lease expiring.

import { Redis } from "ioredis";
import { afterEach, describe, expect, inject, it } from "vitest";
import { changeFeedName } from "../../src/billing/lease-service.js";
import { RealClock, TestClock } from "../helpers/clock.js";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type GatewayProcess, spawnGateway } from "../helpers/gateway-process.js";
import { ADMIN, BODY, COST, chat, leases, revokedOnTheOtherReplica, WORST, warm } from "../helpers/leases.js";
import { parseExposition, total } from "../helpers/prometheus.js";
import { killClientNamed } from "../helpers/redis-clients.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

let replicas: TestGateway[] = [];
let upstream: StubUpstream | undefined;
let spawned: GatewayProcess | undefined;

afterEach(async () => {
  await spawned?.stop("SIGKILL");
  spawned = undefined;
  for (const replica of replicas) await replica.close();
  replicas = [];
  await upstream?.close();
  upstream = undefined;
});

async function twoReplicas(clock: TestClock = new TestClock()): Promise<[TestGateway, TestGateway]> {
  upstream ??= await startStubUpstream({ tokenIntervalMs: 1 });
  const config = { pricing: PRICING, admin: { token: ADMIN } };
  const a = await startTestGateway({ upstreamUrl: upstream.url, clock, config });
  replicas.push(a);
  const b = await startTestGateway({
    upstreamUrl: upstream.url,
    clock,
    config: { ...config, redis: { prefix: a.config.redis.prefix } },
  });
  replicas.push(b);
  return [a, b];
}

async function settleAll(...gateways: TestGateway[]): Promise<void> {
  for (const gateway of gateways) await gateway.gateway.settled();
}

function requestLines(...gateways: TestGateway[]): Record<string, any>[] {
  return gateways.flatMap((t) => t.logs.filter((line) => line.msg === "request"));
}

const micros = (rubles: number) => Math.round(rubles * 1e6);

describe("admission leases on two replicas", () => {
  it("admit most of 200 parallel requests without a round trip, never overspend the budget, and reconcile", async () => {
    const [a, b] = await twoReplicas();
    const key = await a.newKey({ budget: "1", period: "day", balance: "10" });
    await warm(a, key.value);
    await warm(b, key.value);
    const admittedBefore = leases(a).book.admitted + leases(b).book.admitted;
    const warmedUp = requestLines(a, b).length;
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const res = await chat(i % 2 ? a : b, key.value);
        const body = await json(res);
        return res.status === 200 ? 200 : `${res.status} ${body.error.code}`;
      }),
    );
    await settleAll(a, b);
    const accepted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200).every((s) => s === "403 budget_exceeded")).toBe(true);
    expect(leases(a).book.admitted + leases(b).book.admitted).toBeGreaterThan(admittedBefore);
    // The metric counts every forwarded request once, by how it was admitted.
    for (const t of [a, b]) {
      const samples = parseExposition(await (await fetch(`${t.gateway.metricsUrl}/metrics`)).text());
      const forwarded = t.logs.filter((line) => line.msg === "request" && line.status === 200).length;
      expect(total(samples, "tunnel_gateway_admissions_total", { path: "lease" })).toBe(
        leases(t).book.admitted,
      );
      expect(total(samples, "tunnel_gateway_admissions_total")).toBe(forwarded);
    }
    const record = await a.store.keys.get({ accountId: "acme", keyId: key.id });
    const spent = record?.spent ?? -1;
    // Never past the budget; and a refusal means what was spent or held left no room for a worst case, so
    // at least budget / WORST requests were served (as in the per-request path: test/helpers/overspend.ts).
    expect(spent).toBeLessThanOrEqual(1_000_000);
    expect(spent / COST).toBeGreaterThanOrEqual(Math.floor(1_000_000 / WORST));
    const lines = requestLines(a, b);
    expect(lines.filter((line) => line.status === 200)).toHaveLength(accepted + warmedUp);
    expect(lines.reduce((sum, line) => sum + micros(line.cost_rub), 0)).toBe(spent);
    expect((await a.store.accounts.require("acme")).balance).toBe(10_000_000 - spent);
    expect(await a.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("never overspend a balance shared by two keys", async () => {
    const [a, b] = await twoReplicas();
    const one = await a.newKey({ balance: "3" });
    const two = await a.newKey();
    for (const t of [a, b]) for (const key of [one, two]) await warm(t, key.value);
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const res = await chat(i % 2 ? a : b, (i % 4 < 2 ? one : two).value);
        await res.text();
        return res.status;
      }),
    );
    await settleAll(a, b);
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    const balance = (await a.store.accounts.require("acme")).balance;
    expect(balance).toBeGreaterThanOrEqual(0);
    expect((3_000_000 - balance) / COST).toBeGreaterThanOrEqual(Math.floor(3_000_000 / WORST));
    const spent = requestLines(a, b).reduce((sum, line) => sum + micros(line.cost_rub), 0);
    expect(3_000_000 - balance).toBe(spent);
    expect(await a.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("serve a budget smaller than two leases to the last request it covers, on either replica", async () => {
    const [a, b] = await twoReplicas();
    const key = await a.newKey({ budget: String((3 * WORST) / 1e6), period: "day" });
    let refused: Response | undefined;
    for (let i = 0; i < 40 && !refused; i++) {
      const res = await chat(i % 2 ? a : b, key.value);
      if (res.status === 200) await res.text();
      else refused = res;
    }
    expect(refused?.status).toBe(403);
    expect((await json(refused as Response)).error.code).toBe("budget_exceeded");
    await settleAll(a, b);
    const record = await a.store.keys.get({ accountId: "acme", keyId: key.id });
    // Refused only once what is left cannot cover the request's worst case.
    expect(3 * WORST - (record?.spent ?? 0)).toBeLessThan(WORST);
  });

  it("refuse a revoked key on the other replica once the change arrives, without waiting for a refresh", async () => {
    const [a, b] = await twoReplicas();
    await revokedOnTheOtherReplica(a, b);
  });

  it("drop every lease when the change feed is lost, keep serving without them, and take them again once back", async () => {
    const [a, b] = await twoReplicas();
    const key = await a.newKey();
    await warm(b, key.value);
    const admin = new Redis(inject("redisUrl"));
    try {
      await killClientNamed(admin, changeFeedName(leases(b).book.replicaId));
    } finally {
      admin.disconnect();
    }
    await waitUntil(() => leases(b).book.stats().leases === 0, "replica b dropping its leases");
    const during = await chat(b, key.value);
    expect(during.status).toBe(200);
    await during.text();
    await warm(b, key.value);
    await settleAll(a, b);
    expect(await a.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("let a replica starved by a low balance take lease again after a top-up", async () => {
    const [a, b] = await twoReplicas();
    const key = await a.newKey({ balance: String((2 * WORST) / 1e6) });
    let status = 200;
    for (let i = 0; i < 20 && status === 200; i++) {
      const res = await chat(b, key.value);
      status = res.status;
      await res.text();
    }
    expect(status).toBe(402);
    const topUp = await fetch(`${a.gateway.adminUrl}/admin/v1/accounts/acme/topups`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ amount: "5" }),
    });
    expect(topUp.status).toBe(200);
    await warm(b, key.value);
    await settleAll(a, b);
    expect(await a.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });
});

describe("a killed replica's lease", () => {
  it("expires like a reservation and is released by the next script that touches the account", async () => {
    upstream = await startStubUpstream();
    const clock = new RealClock();
    const t = await startTestGateway({ upstreamUrl: upstream.url, clock, config: { pricing: PRICING } });
    replicas.push(t);
    spawned = await spawnGateway({
      pricing: PRICING,
      billing: { reservationTtlSeconds: 10 },
      upstream: { url: upstream.url },
      redis: { url: inject("redisUrl"), prefix: t.config.redis.prefix },
    });
    const key = await t.newKey({ budget: "5" });
    const send = () =>
      fetch(`${spawned?.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.value}`, "content-type": "application/json" },
        body: BODY,
      });
    // The spawned replica takes a lease after its first request. Reserved with no request in flight is the
    // lease: a request's own reservation counts as in flight until its settlement lands, which could empty it
    // before the kill.
    await waitUntil(async () => {
      const res = await send();
      await res.text();
      const inFlight = Object.values(await t.store.billing.inFlight("acme"));
      return (
        (await t.store.billing.reserved("acme")).account > 0 && inFlight.every((requests) => requests === 0)
      );
    }, "the spawned replica's lease");
    await spawned.stop("SIGKILL");
    spawned = undefined;
    expect((await t.store.billing.reserved("acme")).account).toBeGreaterThan(0);
    await waitUntil(
      async () => {
        const res = await chat(t, key.value);
        await res.text();
        await t.gateway.settled();
        return (await t.store.billing.reserved("acme")).account === 0;
      },
      "the lease expiring",
      20_000,
    );
  }, 30_000);
});
