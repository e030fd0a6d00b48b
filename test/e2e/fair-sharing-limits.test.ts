// The fair queue's edges, end to end over real HTTP and the suite's Redis: what a waiting request holds and
// what it costs when it leaves, its bounds and their Retry-After, streams answered only once forwarded, a
// shutdown while requests wait, the priority written for the model server, and the money at the end — every
// request's log line, the keys' spent amounts and the balances agreeing to the micro-ruble.

import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { answerDemoRequest } from "../../src/demo/demo-upstream.js";
import { type BusyModelServer, startBusyModelServer } from "../helpers/busy-model-server.js";
import { RealClock } from "../helpers/clock.js";
import { PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { parseExposition, total } from "../helpers/prometheus.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

let t: TestGateway | undefined;
let stub: StubUpstream | undefined;
let busy: BusyModelServer | undefined;

afterEach(async () => {
  await t?.close();
  await stub?.close();
  await busy?.close();
  t = stub = busy = undefined;
});

/** A model server that holds every completion until the test lets one go (oldest first). */
async function holdingServer() {
  stub = await startStubUpstream();
  const held: (() => void)[] = [];
  stub.handle(async (req, res, body) => {
    if (req.method !== "POST") return false;
    await new Promise<void>((resolve) => held.push(resolve));
    await answerDemoRequest(req, res, body);
    return true;
  });
  return {
    url: stub.url,
    /** Requests the server has taken and holds. */
    get holding() {
      return held.length;
    },
    releaseOne: () => held.shift()?.(),
  };
}

interface Sent {
  /** Resolves when the response's headers arrive. */
  headers: Promise<{ status: number; headers: IncomingHttpHeaders }>;
  /** Resolves with the whole answer, or status 0 when the request was aborted. */
  done: Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>;
  abort(): void;
  headersArrived: boolean;
}

function send(key: string, body: Record<string, unknown>, requestId?: string): Sent {
  const gateway = t as TestGateway;
  let onHeaders!: (value: { status: number; headers: IncomingHttpHeaders }) => void;
  const sent: Sent = {
    headers: new Promise((resolve) => (onHeaders = resolve)),
    done: Promise.resolve({ status: 0, headers: {}, body: "" }),
    abort: () => {},
    headersArrived: false,
  };
  sent.done = new Promise((resolve) => {
    const req = httpRequest(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        ...(requestId !== undefined && { "x-request-id": requestId }),
      },
    });
    sent.abort = () => req.destroy();
    req.on("response", (res) => {
      sent.headersArrived = true;
      onHeaders({ status: res.statusCode ?? 0, headers: res.headers });
      let text = "";
      res.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on("error", () => resolve({ status: 0, headers: res.headers, body: text }));
    });
    req.on("error", () => resolve({ status: 0, headers: {}, body: "" }));
    req.end(
      JSON.stringify({
        model: "demo-small",
        max_tokens: 5,
        messages: [{ role: "user", content: "hi" }],
        ...body,
      }),
    );
  });
  return sent;
}

/** The request's log line, once it is written. */
async function lineOf(done: Sent["done"]): Promise<Record<string, any>> {
  const { headers } = await done;
  const id = headers["x-request-id"];
  let line: Record<string, any> | undefined;
  await waitUntil(() => {
    line = (t as TestGateway).logs.find((entry) => entry.request_id === id && entry.msg === "request");
    return line !== undefined;
  }, `the log line of ${id}`);
  return line as Record<string, any>;
}

/** Scrapes one metric's total from the gateway's /metrics. */
async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${(t as TestGateway).gateway.metricsUrl}/metrics`)).text();
  return total(parseExposition(text), name, labels);
}

/** Σ of the log lines' costs = Σ of the keys' spent amounts = the balance's fall, per account, and nothing reserved. */
async function reconcile(accounts: Record<string, { opening: number; keys: string[] }>): Promise<void> {
  const gateway = t as TestGateway;
  await gateway.gateway.settled();
  for (const [accountId, { opening, keys }] of Object.entries(accounts)) {
    const lines = gateway.logs.filter((line) => line.account === accountId && line.msg === "request");
    const logged = lines.reduce((sum, line) => sum + Math.round(Number(line.cost_rub ?? 0) * 1_000_000), 0);
    let spent = 0;
    for (const keyId of keys) spent += (await gateway.store.keys.get({ accountId, keyId }))?.spent ?? 0;
    const account = await gateway.store.accounts.require(accountId);
    expect({ logged, spent, fall: opening - account.balance }).toEqual({
      logged,
      spent: logged,
      fall: logged,
    });
    expect((await gateway.store.billing.reserved(accountId)).account).toBe(0);
  }
}

describe("a request waiting for the model server", () => {
  it("holds its reservation, gets no response headers until forwarded, and leaves at once, free, when its client goes", async () => {
    const server = await holdingServer();
    t = await startTestGateway({
      upstreamUrl: server.url,
      config: { pricing: PRICING, upstream: { maxInFlight: 1 } },
    });
    const key = await t.newKey({ balance: "1000" });
    const running = send(key.value, {});
    await waitUntil(() => server.holding === 1, "the first request to reach the server");
    const stream = send(key.value, { stream: true });
    const gone = send(key.value, {});
    const next = send(key.value, {});
    await waitUntil(
      async () => (await metric("tunnel_gateway_queue_requests", { account: "acme" })) === 3,
      "three waiting",
    );
    // Waiting requests hold their reservations: four worst cases are reserved.
    const reserved = (await t.store.billing.reserved("acme")).keys[key.id] ?? 0;
    expect(reserved).toBeGreaterThan(0);
    // Free requests never wait: the model list answers while the server is full.
    expect((await t.fetch("/v1/models", { key: key.value })).status).toBe(200);

    const left = performance.now();
    gone.abort();
    await waitUntil(
      () => (t as TestGateway).logs.some((line) => line.status === 499 && line.msg === "request"),
      "the aborted request's line",
    );
    // Out of the queue at once — while the running request still holds the server.
    expect(performance.now() - left).toBeLessThan(1000);
    expect(server.holding).toBe(1);
    const aborted = t.logs.find((line) => line.status === 499 && line.msg === "request") as Record<
      string,
      any
    >;
    expect(aborted).toMatchObject({ outcome: "client_aborted", cost_rub: 0, prompt_tokens: 0 });
    expect(aborted.queue_ms).toBeGreaterThan(0);
    expect(await metric("tunnel_gateway_queue_requests", { account: "acme" })).toBe(2);
    expect(stream.headersArrived).toBe(false);

    // Each ending request lets the next one in, in order; the one that left never reaches the server.
    server.releaseOne();
    expect((await running.done).status).toBe(200);
    await waitUntil(() => server.holding === 1, "the stream to reach the server");
    // Forwarded, the stream's headers are the server's to send: the gateway sent none of its own meanwhile.
    expect(stream.headersArrived).toBe(false);
    server.releaseOne();
    const streamed = await stream.headers;
    expect(streamed.status).toBe(200);
    expect(streamed.headers["content-type"]).toMatch(/text\/event-stream/);
    expect((await stream.done).body).toContain("data: [DONE]");
    await waitUntil(() => server.holding === 1, "the last request to reach the server");
    server.releaseOne();
    expect((await next.done).status).toBe(200);
    expect(stub?.requests.filter((recorded) => recorded.method === "POST")).toHaveLength(3);
    const nextLine = await lineOf(next.done);
    expect(nextLine.queue_ms).toBeGreaterThan(0);
    await t.gateway.settled();
    // The key's client reads the wait too, from the request's id.
    const asked = await t.fetch(`/v1/requests/${nextLine.request_id}`, { key: key.value });
    expect(((await asked.json()) as { queue_ms: number }).queue_ms).toBe(Math.round(nextLine.queue_ms));
    await reconcile({ acme: { opening: 1000_000_000, keys: [key.id] } });
  });

  it("keeps budgets exact when clients give up while they wait: log = spent = balance, nothing reserved", async () => {
    busy = await startBusyModelServer({ capacity: 2, serviceMs: 30 });
    t = await startTestGateway({
      upstreamUrl: busy.url,
      clock: new RealClock(),
      config: { pricing: PRICING, upstream: { maxInFlight: 2 } },
    });
    const a = await t.newKey({ accountId: "a", balance: "1000" });
    const a2 = await t.newKey({ accountId: "a" });
    const b = await t.newKey({ accountId: "b", balance: "1000" });
    const keys = [a, a2, b];
    const sent = Array.from({ length: 45 }, (_, i) => {
      const id = `r${i}`;
      const request = send((keys[i % 3] as { value: string }).value, { stream: i % 2 === 0, user: id }, id);
      // Every third one gives up while it waits (or, if its turn came first, while it runs): not before 150 ms,
      // by when every request has long reached the queue (45 take ~700 ms to drain, so most still wait then),
      // as one that left while its body was still being read would have no line of its own to count (a CI run
      // on Node 24 had one leave at 20 ms, and a loaded run one at 60 ms).
      if (i % 3 === 1) setTimeout(() => request.abort(), 150 + (i % 7) * 15);
      return request;
    });
    const results = await Promise.all(sent.map((request) => request.done));
    expect(results.filter((result) => result.status === 200).length).toBeGreaterThanOrEqual(30);
    await waitUntil(
      () => (t as TestGateway).logs.filter((line) => line.msg === "request").length === 45,
      "every request's line",
    );
    // Those that left before their turn never reached the server, and cost nothing.
    const forwarded = new Set((busy as BusyModelServer).started.map((start) => start.tenant));
    const leftWaiting = t.logs.filter(
      (line) => line.outcome === "client_aborted" && !forwarded.has(line.request_id as string),
    );
    expect(leftWaiting.length).toBeGreaterThan(0);
    for (const line of leftWaiting) expect(line).toMatchObject({ status: 499, cost_rub: 0 });
    await reconcile({
      a: { opening: 1000_000_000, keys: [a.id, a2.id] },
      b: { opening: 1000_000_000, keys: [b.id] },
    });
  });
});

describe("the bounds of a wait", () => {
  /** A few requests one after another, so that the queue's drain rate is measured. */
  async function warmUp(key: string): Promise<void> {
    for (let i = 0; i < 4; i++) expect((await send(key, {}).done).status).toBe(200);
  }

  it("refuses beyond queue.maxRequestsPerAccount with 429 server_busy, and a retry after Retry-After succeeds", async () => {
    busy = await startBusyModelServer({ capacity: 1, serviceMs: 150 });
    t = await startTestGateway({
      upstreamUrl: busy.url,
      clock: new RealClock(),
      config: { pricing: PRICING, upstream: { maxInFlight: 1 }, queue: { maxRequestsPerAccount: 2 } },
    });
    const key = await t.newKey();
    await warmUp(key.value);
    const accepted = [send(key.value, {})];
    await waitUntil(() => (busy as BusyModelServer).running === 1, "the first request to run");
    accepted.push(send(key.value, {}), send(key.value, {}));
    await waitUntil(
      async () => (await metric("tunnel_gateway_queue_requests", { account: "acme" })) === 2,
      "two waiting",
    );
    const refused = await send(key.value, {}).done;
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error).toMatchObject({ code: "server_busy", type: "rate_limit_error" });
    expect(JSON.parse(refused.body).error.message).toContain("queue.maxRequestsPerAccount");
    const retryAfterMs = Number(refused.headers["retry-after-ms"]);
    expect(Number(refused.headers["retry-after"])).toBe(Math.max(1, Math.ceil(retryAfterMs / 1000)));
    // The two waiting and one more at about 150 ms each: honest, neither far too early nor far too late.
    expect(retryAfterMs).toBeGreaterThanOrEqual(300);
    expect(retryAfterMs).toBeLessThan(3000);
    await new Promise((resolve) => setTimeout(resolve, retryAfterMs));
    const retried = send(key.value, {});
    expect((await retried.done).status).toBe(200);
    expect(await metric("tunnel_gateway_refusals_total", { code: "server_busy" })).toBe(1);
    for (const request of accepted) expect((await request.done).status).toBe(200);
    await reconcile({ acme: { opening: 1000_000_000, keys: [key.id] } });
  });

  it("refuses a request that waited its account's max_wait_ms with server_busy, and a retry after Retry-After succeeds", async () => {
    busy = await startBusyModelServer({ capacity: 1, serviceMs: 200 });
    t = await startTestGateway({
      upstreamUrl: busy.url,
      clock: new RealClock(),
      config: { pricing: PRICING, upstream: { maxInFlight: 1 }, queue: { maxWaitMs: 60_000 } },
    });
    const key = await t.newKey();
    // The account's own bound, below the configured one.
    await t.store.stores.sharing.setAccount("acme", { max_wait_ms: "300" }, "{}");
    await warmUp(key.value);
    const first = send(key.value, {});
    await waitUntil(() => (busy as BusyModelServer).running === 1, "the first request to run");
    const second = send(key.value, {});
    const third = send(key.value, {});
    const refused = await third.done;
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toContain("waited 300 ms");
    const line = await lineOf(third.done);
    expect(line).toMatchObject({ status: 429, code: "server_busy" });
    // About the account's 300 ms: a Node timer counts from the event loop's cached time, so it may fire a few
    // milliseconds early by a fresh clock when the loop is busy; far from both 0 and the configured 60 s.
    expect(line.queue_ms).toBeGreaterThanOrEqual(250);
    expect(line.queue_ms).toBeLessThan(2000);
    const retryAfterMs = Number(refused.headers["retry-after-ms"]);
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThan(3000);
    expect((await first.done).status).toBe(200);
    expect((await second.done).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, retryAfterMs));
    expect((await send(key.value, {}).done).status).toBe(200);
    await reconcile({ acme: { opening: 1000_000_000, keys: [key.id] } });
  });
});

describe("a shutdown while requests wait", () => {
  it("answers the waiting requests 503 at once, never forwarded, and lets the running one finish", async () => {
    const server = await holdingServer();
    t = await startTestGateway({
      upstreamUrl: server.url,
      config: { pricing: PRICING, upstream: { maxInFlight: 1 } },
    });
    const key = await t.newKey();
    const running = send(key.value, {});
    await waitUntil(() => server.holding === 1, "the first request to reach the server");
    const waiting = [send(key.value, {}), send(key.value, { stream: true })];
    await waitUntil(
      async () => (await metric("tunnel_gateway_queue_requests", { account: "acme" })) === 2,
      "two waiting",
    );
    const gateway = t;
    const closing = gateway.gateway.close(60_000);
    const answers = await Promise.all(waiting.map((request) => request.done));
    expect(answers.map((answer) => answer.status)).toEqual([503, 503]);
    expect(JSON.parse(answers[0]?.body as string).error.code).toBe("service_unavailable");
    // The running request is still held by the server: the waiting ones did not wait for it.
    expect(server.holding).toBe(1);
    server.releaseOne();
    expect((await running.done).status).toBe(200);
    await closing;
    expect(stub?.requests.filter((recorded) => recorded.method === "POST")).toHaveLength(1);
    const lines = gateway.logs.filter((line) => line.msg === "request");
    expect(lines.filter((line) => line.outcome === "shutdown").map((line) => line.cost_rub)).toEqual([0, 0]);
    // Reopened on the same Redis, nothing is left reserved.
    const store = gateway.store;
    expect((await store.billing.reserved("acme")).account).toBe(0);
    store.close();
    t = undefined;
  });
});

describe("the priority written for the model server", () => {
  async function forwardedPriority(
    config: Record<string, unknown>,
    body: Record<string, unknown>,
    sharing: { account?: string; key?: string } = {},
  ) {
    stub = await startStubUpstream();
    t = await startTestGateway({ upstreamUrl: stub.url, config: { pricing: PRICING, upstream: config } });
    const key = await t.newKey();
    if (sharing.account !== undefined)
      await t.store.stores.sharing.setAccount("acme", { priority: sharing.account }, "{}");
    if (sharing.key !== undefined)
      await t.store.stores.sharing.setKey(
        { accountId: "acme", keyId: key.id },
        { priority: sharing.key },
        "{}",
      );
    expect((await send(key.value, body).done).status).toBe(200);
    const last = stub.requests.at(-1) as { body: Buffer };
    const forwarded = JSON.parse(last.body.toString("utf8"));
    await t.close();
    await stub.close();
    t = stub = undefined;
    return forwarded;
  }

  it("writes the key's priority (never more urgent than its account's) into the field named, over the client's", async () => {
    const field = { priorityField: "priority" };
    expect((await forwardedPriority(field, { priority: -100 }, { account: "3", key: "5" })).priority).toBe(5);
    expect((await forwardedPriority(field, {}, { account: "3" })).priority).toBe(3);
    expect((await forwardedPriority(field, { priority: -100 })).priority).toBe(0);
    expect(
      (await forwardedPriority({ ...field, priorityOrder: "higherFirst" }, {}, { account: "3" })).priority,
    ).toBe(-3);
    const nested = await forwardedPriority(
      { priorityField: "nvext.priority" },
      { nvext: { x: 1 } },
      { account: "2" },
    );
    expect(nested.nvext).toEqual({ x: 1, priority: 2 });
    // Without the setting the body goes as the client sent it, its own field included.
    expect((await forwardedPriority({}, { priority: -100 }, { account: "3" })).priority).toBe(-100);
  });
});
