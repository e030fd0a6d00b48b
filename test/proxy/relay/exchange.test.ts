// The Exchange on its own: a real client, a real listener that hands each request to an Exchange, and a
// real upstream, with the settlement queue, the reservation keeper and the observer replaced by recorders.
// Each way a request can end is settled exactly once, and reported once.

import { once } from "node:events";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Pricing } from "../../../src/billing/pricing.js";
import { configSchema } from "../../../src/config/schema.js";
import { GatewayRequest } from "../../../src/core/request.js";
import { Exchange, type RelayPlan } from "../../../src/proxy/relay/exchange.js";
import { prepareUpstreamHeaders } from "../../../src/proxy/relay/headers.js";
import { createUpstreamProxy } from "../../../src/proxy/relay/upstream-proxy.js";
import { fixtureNamed, replayFixture } from "../../fixtures/upstreams/index.js";
import { testContext } from "../../helpers/context.js";
import { openStore, type TestStore } from "../../helpers/store.js";
import { waitUntil } from "../../helpers/wait.js";

type Handler = (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void;

const servers: Server[] = [];
let store: TestStore;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function listen(handler: Handler): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const PRICE = new Pricing(
  configSchema.parse({ pricing: { default: { input: 1000, output: 2000, maxOutputTokens: 100 } } }).pricing,
).priceFor(null);

/** A gateway of one Exchange per request, in front of `upstream`; returns its URL and what it recorded. */
async function exchangeServer(
  upstream: Handler,
  over: Partial<GatewayRequest> = {},
  timeoutMs = 5000,
  planned: Partial<RelayPlan> = {},
) {
  const upstreamUrl = await listen(upstream);
  const recorded = testContext(store, { upstream: { url: upstreamUrl, timeoutMs } });
  const { ctx } = recorded;
  const { proxy } = createUpstreamProxy(ctx.config.upstream);
  let n = 0;
  const url = await listen((req, res) => {
    const body = Buffer.from('{"model":"m","max_tokens":10,"messages":[]}');
    prepareUpstreamHeaders(req, {
      requestId: `r${n + 1}`,
      callerToken: "sk-tunnel-test",
      upstreamAuthorization: undefined,
      bodyLength: body.length,
      identityEncoding: false,
      protocol: "http",
    });
    const request = new GatewayRequest(`r${++n}`, req.method ?? "GET", req.url ?? "/", performance.now());
    const admitted = Object.assign(
      request,
      {
        ref: { accountId: "acme", keyId: "key_a" },
        keyName: "k",
        logBodies: false,
        model: "m",
        errorFormat: "openai",
        endpointClass: "generation",
        usageClass: "generation",
        price: PRICE,
        admission: "reserve",
        reservationId: `resv-${n}`,
        reservedAt: store.clock.now(),
        reserved: 50_000,
        promptEstimate: 10,
        maxCompletionTokens: 10,
        maxPromptTokens: 1000,
      },
      over,
    );
    ctx.tracker.begin(admitted);
    const plan: RelayPlan = {
      forwarded: body,
      received: body,
      strip: null,
      filterModels: null,
      rateLimitHeaders: null,
      ...planned,
    };
    new Exchange(req, res, admitted, plan, ctx.exchange).start(proxy);
  });
  return { url, ...recorded, tracker: ctx.tracker };
}

function get(url: string): Promise<{ status: number; body: string }> {
  return fetch(url).then(async (res) => ({ status: res.status, body: await res.text() }));
}

describe("Exchange", () => {
  it("streams the response and settles it once with the reported usage", async () => {
    const fixture = fixtureNamed("vllm", "chat");
    const x = await exchangeServer((_req, res) => void replayFixture(fixture, res), {
      maxCompletionTokens: 100,
    });
    const res = await get(`${x.url}/v1/chat/completions`);
    expect(res).toEqual({ status: 200, body: fixture.response.chunks.join("") });
    await x.tracker.idle();
    expect(x.settled).toHaveLength(1);
    // 39 prompt tokens at 1000 µ₽ and 8 completion tokens at 2000 µ₽ are 55 000 µ₽: beyond the 50 000
    // reserved, so the reservation is charged and the rest reported as overage.
    expect(x.settled[0]).toMatchObject({
      cost: 50_000,
      promptTokens: 39,
      completionTokens: 8,
      failed: false,
    });
    expect(x.finished).toMatchObject([
      { outcome: "completed", status: 200, estimated: false, overage: 5_000 },
    ]);
    expect([...x.tracker.reservations()]).toEqual([]);
    expect(x.tracker.size).toBe(0);
  });

  it("answers 504 when the upstream sends nothing in time, stops it, and charges nothing", async () => {
    let upstreamClosed = false;
    const x = await exchangeServer(
      (req) => {
        req.socket.on("close", () => {
          upstreamClosed = true;
        });
      },
      {},
      100,
    );
    const res = await get(`${x.url}/v1/chat/completions`);
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body).error.code).toBe("upstream_timeout");
    await x.tracker.idle();
    expect(x.settled[0]).toMatchObject({ cost: 0, failed: true });
    expect(x.finished[0]).toMatchObject({ outcome: "upstream_timeout", status: 504 });
    await waitUntil(() => upstreamClosed, "the upstream request to be stopped");
  });

  it("answers 502 in Anthropic's shape on /v1/messages when the upstream cannot be reached", async () => {
    const x = await exchangeServer(() => {}, { errorFormat: "anthropic" });
    servers[0]?.close();
    servers[0]?.closeAllConnections();
    const res = await get(`${x.url}/v1/messages`);
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body)).toMatchObject({
      type: "error",
      error: { type: "api_error", code: "upstream_unavailable" },
    });
    await x.tracker.idle();
    expect(x.settled[0]?.cost).toBe(0);
  });

  it("stops the upstream the instant the client leaves, and bills what was produced by estimate", async () => {
    let upstreamAborted = false;
    const x = await exchangeServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"choices":[{"delta":{"content":"a"}}]}\n\n');
      res.write('data: {"choices":[{"delta":{"content":"b"}}]}\n\n');
      res.on("close", () => {
        upstreamAborted = !res.writableFinished;
      });
    });
    const req = request(`${x.url}/v1/chat/completions`);
    req.on("error", () => {});
    req.end();
    const [res] = (await once(req, "response")) as [import("node:http").IncomingMessage];
    let seen = "";
    res.on("data", (chunk: Buffer) => {
      seen += chunk;
      if (seen.includes('"b"')) req.destroy();
    });
    await x.tracker.idle();
    await waitUntil(() => upstreamAborted, "the upstream to be aborted");
    expect(x.finished).toMatchObject([
      { outcome: "client_aborted", status: 200, estimated: true, completionTokens: 2 },
    ]);
    expect(x.settled).toHaveLength(1);
    expect(x.settled[0]).toMatchObject({ promptTokens: 10, completionTokens: 2, failed: true });
  });

  it("cuts the client's stream when the upstream resets mid-stream, and bills what was produced", async () => {
    const x = await exchangeServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"choices":[{"delta":{"content":"a"}}]}\n\n', () => res.socket?.destroy());
    });
    await expect(fetch(`${x.url}/v1/chat/completions`).then((r) => r.text())).rejects.toThrow("terminated");
    await x.tracker.idle();
    expect(x.finished).toMatchObject([{ outcome: "upstream_reset", estimated: true, completionTokens: 1 }]);
  });

  it("answers 503 to a request the end of a shutdown drain stops before the upstream answered, charging nothing", async () => {
    const x = await exchangeServer(() => {});
    const answer = get(`${x.url}/v1/chat/completions`);
    await waitUntil(() => x.tracker.size === 1, "the request to be running");
    x.tracker.abortAll();
    expect((await answer).status).toBe(503);
    await x.tracker.idle();
    expect(x.finished).toMatchObject([{ outcome: "shutdown", cost: 0 }]);
  });

  it("settles and ends its request even when the observer throws", async () => {
    const fixture = fixtureNamed("vllm", "chat");
    const x = await exchangeServer((_req, res) => void replayFixture(fixture, res), {
      maxCompletionTokens: 100,
    });
    x.ctx.observer.finished = () => {
      throw new Error("a metric broke");
    };
    expect((await get(`${x.url}/v1/chat/completions`)).status).toBe(200);
    await x.tracker.idle();
    expect(x.settled).toHaveLength(1);
    expect(x.logs.at(-1)).toMatchObject({ msg: "reporting a finished request failed" });
  });

  it("filters a model list down to the key's models", async () => {
    const x = await exchangeServer(
      (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "a" }, { id: "b" }, { id: "c" }] }));
      },
      { usageClass: null, reserved: 0 },
      5000,
      { filterModels: ["a", "c"] },
    );
    const res = await get(`${x.url}/v1/models`);
    expect(JSON.parse(res.body).data).toEqual([{ id: "a" }, { id: "c" }]);
    await x.tracker.idle();
    expect(x.settled[0]?.cost).toBe(0);
  });

  it("passes a model list that is JSON null through as it came, rather than throwing", async () => {
    const x = await exchangeServer(
      (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("null");
      },
      { usageClass: null, reserved: 0 },
      5000,
      { filterModels: ["a"] },
    );
    expect(await get(`${x.url}/v1/models`)).toEqual({ status: 200, body: "null" });
    await x.tracker.idle();
    expect(x.settled).toHaveLength(1);
  });

  it("fails the one request, not the process, when relaying an answer throws, and still settles it", async () => {
    const fixture = fixtureNamed("vllm", "chat");
    const x = await exchangeServer((_req, res) => void replayFixture(fixture, res), {
      maxCompletionTokens: 100,
    });
    const bug = vi.spyOn(Exchange.prototype, "onUpstreamEnd").mockImplementation(() => {
      throw new Error("a bug in relaying");
    });
    try {
      await expect(get(`${x.url}/v1/chat/completions`)).rejects.toThrow();
      await x.tracker.idle();
    } finally {
      bug.mockRestore();
    }
    expect(x.settled).toHaveLength(1);
    expect(x.finished).toMatchObject([{ outcome: "upstream_reset" }]);
    expect(x.logs).toContainEqual(
      expect.objectContaining({ msg: "relaying the upstream's answer failed", request_id: "r1" }),
    );
    // The next request is served as usual.
    expect((await get(`${x.url}/v1/chat/completions`)).status).toBe(200);
  });
});
