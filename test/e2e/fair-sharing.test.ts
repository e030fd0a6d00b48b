// Fair sharing of a full model server, end to end: a real gateway (upstream.maxInFlight set) over real HTTP,
// the suite's Redis, and a model server that runs at most CAPACITY requests at once for SERVICE_MS each. Shares
// and waits are read in the order the model server ran the requests (so that a loaded machine changes the
// timing, not the verdict); the assertions on real time are generous.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BusyModelServer, startBusyModelServer } from "../helpers/busy-model-server.js";
import { RealClock } from "../helpers/clock.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";

const CAPACITY = 8;
const SERVICE_MS = 100;

/** A chat completion of `tenant` (the model server reads it from the body's user field). */
function chat(tenant: string): string {
  return JSON.stringify({
    model: "demo-small",
    max_tokens: 8,
    user: tenant,
    messages: [{ role: "user", content: "hello there" }],
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Jain's fairness index: 1 when every value is equal, 1/n when one gets everything. */
function jain(values: number[]): number {
  const sum = values.reduce((a, b) => a + b, 0);
  return (sum * sum) / (values.length * values.reduce((a, b) => a + b * b, 0));
}

describe("fair sharing of a full model server", () => {
  let server: BusyModelServer;
  let t: TestGateway;

  beforeAll(async () => {
    server = await startBusyModelServer({ capacity: CAPACITY, serviceMs: SERVICE_MS });
    t = await startTestGateway({
      upstreamUrl: server.url,
      clock: new RealClock(),
      config: {
        upstream: { maxInFlight: CAPACITY },
        queue: { maxRequestsPerAccount: 5000, maxRequests: 10_000 },
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await server.close();
  });

  /** Keeps `concurrency` requests of `tenant` outstanding until `until` (performance.now()); returns how many ran. */
  async function flood(key: string, tenant: string, concurrency: number, until: number): Promise<number> {
    let done = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) {
          const res = await t.fetch("/v1/chat/completions", { method: "POST", key, body: chat(tenant) });
          await res.arrayBuffer();
          if (res.status === 200) done++;
        }
      }),
    );
    return done;
  }

  it("keeps a quiet account's added wait within one service time while a noisy one floods the server", async () => {
    const noisy = await t.newKey({ accountId: "noisy", balance: "100000" });
    const quiet = await t.newKey({ accountId: "quiet", balance: "100000" });
    // The noisy account keeps 20 times its share of the server's places busy: 4 places, 80 requests.
    const until = performance.now() + 3000;
    const flooding = flood(noisy.value, "noisy", 20 * (CAPACITY / 2), until);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The quiet account sends one request every 50 ms, half its share, whatever the answers; each names
    // itself to the model server, so that its wait is matched with its start there.
    const trickle: Promise<{ tenant: string; status: number; queueMs: number }>[] = [];
    while (performance.now() < until - 300) {
      const tenant = `quiet#${trickle.length}`;
      trickle.push(
        (async () => {
          const res = await t.fetch("/v1/chat/completions", {
            method: "POST",
            key: quiet.value,
            body: chat(tenant),
          });
          const id = res.headers.get("x-request-id");
          await res.arrayBuffer();
          const line = t.logs.find((entry) => entry.request_id === id && entry.msg === "request");
          return { tenant, status: res.status, queueMs: Number(line?.queue_ms ?? 0) };
        })(),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const quietDone = await Promise.all(trickle);
    const noisyDone = await flooding;
    expect(quietDone.map((request) => request.status)).toEqual(quietDone.map(() => 200));

    // In the server's own order: while a quiet request waited (in the gateway's queue, and in the server's
    // own, which fair sharing keeps empty), the server started at most as many of the noisy account's
    // requests as it has places — one service time's worth — where a first-come server runs the 80 waiting.
    const starts = server.started;
    const ahead = quietDone.map(({ tenant, queueMs }) => {
      const start = starts.find((s) => s.tenant === tenant) as (typeof starts)[number];
      const from = start.arrivedAt - queueMs;
      return starts.filter((s) => s.tenant === "noisy" && s.at > from && s.at < start.at).length;
    });
    const waits = quietDone.map((request) => request.queueMs);
    expect(percentile(ahead, 99)).toBeLessThanOrEqual(CAPACITY);
    // In time: the quiet account's wait in the gateway's queue, at p99, within one service time — and half of
    // one again for the scheduling of a loaded machine.
    expect(percentile(waits, 99)).toBeLessThanOrEqual(SERVICE_MS * 1.5);
    // The server stayed full, never over its limit, and both were served as max-min fairness would: the
    // quiet account all it asked for, the noisy one the rest.
    expect(server.mostRunning).toBe(CAPACITY);
    const quietStarts = starts.filter((s) => s.tenant.startsWith("quiet#")).length;
    const noisyStarts = starts.filter((s) => s.tenant === "noisy").length;
    expect(jain([quietStarts / quietDone.length, noisyDone / noisyStarts])).toBeGreaterThanOrEqual(0.95);
  });

  it("shares the server 3:1 within 5 % between two flooding accounts of weights 3 and 1", async () => {
    const heavy = await t.newKey({ accountId: "heavy", balance: "100000" });
    const light = await t.newKey({ accountId: "light", balance: "100000" });
    await t.store.stores.sharing.setAccount("heavy", { weight: "3" }, "{}");
    const from = server.started.length;
    const until = performance.now() + 2500;
    await Promise.all([flood(heavy.value, "heavy", 24, until), flood(light.value, "light", 24, until)]);
    // While both wait (the first and last moments, when one of them may not, left out).
    const run = server.started.slice(from).filter((s) => s.tenant === "heavy" || s.tenant === "light");
    const middle = run.slice(Math.floor(run.length * 0.1), Math.floor(run.length * 0.9));
    const heavyCount = middle.filter((s) => s.tenant === "heavy").length;
    const lightCount = middle.length - heavyCount;
    expect(Math.abs(heavyCount / lightCount - 3) / 3).toBeLessThan(0.05);
    expect(jain([heavyCount / 3, lightCount / 1])).toBeGreaterThanOrEqual(0.95);
  });
});
