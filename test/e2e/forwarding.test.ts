// Forwarding with metering, end to end: a real gateway, the suite's Redis and a stub upstream that records
// what it receives. Each behaviour of the forwarding contract has its test here.

import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, type RedisServer, startRedisServer } from "../../src/demo/redis-server.js";
import { ACTOR } from "../helpers/actor.js";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

let t: TestGateway;
let upstream: StubUpstream;
/** A Redis of a test's own, for tests that pause it (the suite's Redis is shared by every test file). */
let ownRedis: RedisServer | undefined;

afterEach(async () => {
  await t?.close();
  await upstream?.close();
  await ownRedis?.stop();
  ownRedis = undefined;
});

async function setup(config: Record<string, unknown> = {}) {
  upstream = await startStubUpstream();
  t = await startTestGateway({ upstreamUrl: upstream.url, config: { pricing: PRICING, ...config } });
}

function chat(body: Record<string, unknown>, key: string, headers: Record<string, string> = {}) {
  return t.fetch("/v1/chat/completions", {
    method: "POST",
    key,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({
      model: "demo-small",
      messages: [{ role: "user", content: "say hi please" }],
      ...body,
    }),
  });
}

function lastRequestLog(): Record<string, any> {
  const lines = t.logs.filter((line) => line.msg === "request" || line.msg === "request refused");
  return lines[lines.length - 1] as Record<string, any>;
}

/** Requests the gateway counts as in flight (read from its metrics, without touching Redis). */
async function inFlight(): Promise<number> {
  const text = await t.gateway.metrics.registry?.getSingleMetricAsString("tunnel_gateway_requests_in_flight");
  return Number(/ (\d+)$/m.exec(text ?? "")?.[1]);
}

/**
 * Sends a chat completion and leaves (destroys the connection) as soon as the gateway holds the request,
 * while Redis is paused: the gateway's next Redis command (the key lookup, or the reservation once the key
 * is cached) cannot finish before the client has gone. With `partBody` the client sends only half its body.
 */
async function leaveWhileRedisIsPaused(key: string, partBody = false): Promise<void> {
  await t.store.redis.call("CLIENT", "PAUSE", "1000", "ALL");
  const req = httpRequest(`${t.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  });
  req.on("error", () => {});
  const body = JSON.stringify({ model: "demo-small", messages: [{ role: "user", content: "hi" }] });
  if (partBody) req.write(body.slice(0, 20));
  else req.end(body);
  await waitUntil(async () => (await inFlight()) === 1, "the gateway to hold the request");
  req.destroy();
}

async function accountState(accountId = "acme") {
  const account = await t.store.accounts.require(accountId);
  return { balance: account.balance, reserved: (await t.store.billing.reserved(accountId)).account };
}

describe("forwarding", () => {
  it("caps a generation that sets no output limit at the worst case reserved for it, and leaves set limits alone", async () => {
    await setup();
    const key = await t.newKey();
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
      return true;
    });
    const post = (path: string, body: Record<string, unknown>) =>
      t.fetch(path, {
        method: "POST",
        key: key.value,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "demo-small", ...body }),
      });
    const forwarded = () => JSON.parse(upstream.requests.at(-1)?.body.toString() ?? "null");
    const cap = PRICING.default.maxOutputTokens;

    await (await post("/v1/chat/completions", { messages: [] })).text();
    expect(forwarded()).toEqual({ model: "demo-small", messages: [], max_tokens: cap });
    await (await post("/v1/completions", { prompt: "x", max_tokens: null })).text();
    expect(forwarded()).toEqual({ model: "demo-small", prompt: "x", max_tokens: cap });
    await (await post("/v1/responses", { input: "x" })).text();
    expect(forwarded()).toEqual({ model: "demo-small", input: "x", max_output_tokens: cap });
    // Embeddings generate no text: nothing to cap.
    await (await post("/v1/embeddings", { input: "x" })).text();
    expect(forwarded()).toEqual({ model: "demo-small", input: "x" });
    // A limit the client set is forwarded byte for byte; a cap set only in a field some servers ignore (TGI
    // and llama.cpp read max_tokens, not max_completion_tokens) is also written where they read it.
    const send = async (body: string) => {
      await (
        await t.fetch("/v1/chat/completions", {
          method: "POST",
          key: key.value,
          headers: { "content-type": "application/json" },
          body,
        })
      ).text();
      return upstream.requests.at(-1)?.body.toString();
    };
    const own = '{"model":"demo-small","messages":[],"max_tokens":7, "seed":18446744073709551615}';
    expect(await send(own)).toBe(own);
    expect(await send('{"model":"demo-small","messages":[],"max_completion_tokens":7}')).toBe(
      '{"model":"demo-small","messages":[],"max_completion_tokens":7,"max_tokens":7}',
    );
  });

  it("reserves for the largest of the output limits a body sets, as model servers differ in which they read", async () => {
    await setup();
    // Counting max_tokens: 100 000 the worst case is 200 ₽ of output (2000 ₽ per million), far over a 1 ₽
    // budget; counting only max_completion_tokens: 1 it would be about 0.1 ₽ and pass.
    const key = await t.newKey({ budget: "1" });
    const res = await chat({ max_completion_tokens: 1, max_tokens: 100_000 }, key.value);
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe("budget_exceeded");
    expect(upstream.requests).toHaveLength(0);
    expect((await chat({ max_completion_tokens: 1, max_tokens: 1 }, key.value)).status).toBe(200);
  });

  it("charges nothing for a request without a body, such as retrieving a stored response", async () => {
    await setup();
    const key = await t.newKey();
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: "resp_1", usage: { input_tokens: 50, output_tokens: 80 } }));
      return true;
    });
    const before = await accountState();
    const res = await t.fetch("/v1/responses/resp_1", { key: key.value });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: "resp_1" });
    await t.gateway.settled();
    expect(lastRequestLog()).toMatchObject({
      status: 200,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost_rub: 0,
    });
    expect(await accountState()).toEqual(before);
  });

  it("forwards any method, path and query, and never the caller's key", async () => {
    await setup({ upstream: { apiKey: "upstream-secret" } });
    const key = await t.newKey();
    const res = await t.fetch("/some/path?x=1&y=%20z", {
      method: "PUT",
      key: key.value,
      headers: { "x-api-key": key.value, "content-type": "text/plain", "x-custom": "kept" },
      body: "hello",
    });
    expect(res.status).toBe(404); // the demo upstream does not know the path; its answer passes through
    const seen = upstream.requests[0]!;
    expect(seen.method).toBe("PUT");
    expect(seen.url).toBe("/some/path?x=1&y=%20z");
    expect(seen.body.toString()).toBe("hello");
    expect(seen.headers.authorization).toBe("Bearer upstream-secret");
    expect(seen.headers["x-custom"]).toBe("kept");
    expect(JSON.stringify(seen.headers)).not.toContain(key.value.slice(10));
  });

  it("sends no Authorization upstream when no upstream key is configured", async () => {
    await setup();
    const key = await t.newKey();
    await chat({}, key.value);
    expect(upstream.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("drops hop-by-hop headers and adds X-Forwarded-* and X-Request-Id", async () => {
    await setup();
    const key = await t.newKey();
    // fetch() will not send Connection or TE itself, so this one goes through node:http.
    const requestId = await new Promise<string | undefined>((resolve, reject) => {
      httpRequest(`${t.url}/v1/models`, {
        headers: {
          authorization: `Bearer ${key.value}`,
          connection: "keep-alive, x-drop-me",
          "x-drop-me": "1",
          te: "trailers",
          "x-request-id": "client-id-123",
        },
      })
        .on("response", (res) => {
          res.resume();
          resolve(res.headers["x-request-id"] as string | undefined);
        })
        .on("error", reject)
        .end();
    });
    expect(requestId).toBe("client-id-123");
    const seen = upstream.requests[0]!.headers;
    expect(seen["x-drop-me"]).toBeUndefined();
    expect(seen.te).toBeUndefined();
    expect(seen["x-request-id"]).toBe("client-id-123");
    expect(seen["x-forwarded-for"]).toBe("127.0.0.1");
    expect(seen["x-forwarded-proto"]).toBe("http");
    expect(seen["x-forwarded-host"]).toBe(new URL(t.url).host);
  });

  it("generates a request id when the client sends none (or an unsafe one) and logs it", async () => {
    await setup();
    const key = await t.newKey();
    const res = await t.fetch("/v1/models", {
      key: key.value,
      headers: { "x-request-id": "bad id\twith tab" },
    });
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await t.gateway.settled();
    expect(lastRequestLog().request_id).toBe(id);
    expect(upstream.requests[0]!.headers["x-request-id"]).toBe(id);
  });

  it("streams server-sent events chunk by chunk, without buffering the response", async () => {
    await setup();
    const key = await t.newKey();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    upstream.handle(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"first"}}]}\n\n');
      await released; // the rest comes only after the client has seen the first event
      res.write('data: {"choices":[{"index":0,"delta":{"content":"second"}}]}\n\n');
      res.end("data: [DONE]\n\n");
      return true;
    });
    const res = await chat({ stream: true, stream_options: { include_usage: true } }, key.value);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("first");
    expect(first).not.toContain("second");
    release();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += new TextDecoder().decode(r.value);
    expect(rest).toContain("second");
    expect(rest).toContain("[DONE]");
  });
});

describe("request bodies", () => {
  it("refuses a declared Content-Length over the limit with 413 before reading, and forwards nothing", async () => {
    await setup({ limits: { maxBodyBytes: 1000 } });
    const key = await t.newKey();
    const res = await chat({ padding: "x".repeat(2000) }, key.value);
    expect(res.status).toBe(413);
    expect((await json(res)).error.code).toBe("payload_too_large");
    expect(upstream.requests).toHaveLength(0);
  });

  it("refuses a chunked body once it passes the limit", async () => {
    await setup({ limits: { maxBodyBytes: 1000 } });
    const key = await t.newKey();
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${t.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.value}`, "transfer-encoding": "chunked" },
      });
      req.on("response", (res) => resolve(res.statusCode ?? 0));
      req.on("error", reject);
      for (let i = 0; i < 20; i++) req.write("y".repeat(100));
      req.end();
    });
    expect(status).toBe(413);
    expect(upstream.requests).toHaveLength(0);
  });

  it("forwards the same bytes it received", async () => {
    await setup();
    const key = await t.newKey();
    const body =
      '{ "model" : "demo-small", "messages": [{"role":"user","content":"Привет"}], "max_tokens": 5 }';
    await t.fetch("/v1/chat/completions", {
      method: "POST",
      key: key.value,
      body,
      headers: { "content-type": "application/json" },
    });
    expect(upstream.requests[0]!.body.toString()).toBe(body);
    expect(upstream.requests[0]!.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
  });
});

describe("model check", () => {
  it("refuses another model with 403 model_not_allowed and lets an allowed one through", async () => {
    await setup();
    const key = await t.newKey({ models: ["demo-small"] });
    const refused = await chat({ model: "demo-large" }, key.value);
    expect(refused.status).toBe(403);
    const body = await json(refused);
    expect(body.error).toMatchObject({ code: "model_not_allowed", type: "permission_error" });
    expect(body.error.message).toContain("demo-large");
    expect((await chat({ model: "demo-small" }, key.value)).status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
  });

  it("fails closed on a body without a model, so the upstream's default model is never reached", async () => {
    await setup();
    const key = await t.newKey({ models: ["demo-small"] });
    const res = await t.fetch("/v1/chat/completions", {
      method: "POST",
      key: key.value,
      body: '{"messages":[]}',
    });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe("model_not_allowed");
    const garbage = await t.fetch("/v1/chat/completions", {
      method: "POST",
      key: key.value,
      body: "{not json",
    });
    // A body that is not JSON is refused before its model is checked (test/e2e/malformed-bodies.test.ts).
    expect(garbage.status).toBe(400);
    expect((await json(garbage)).error.code).toBe("invalid_request");
    expect(upstream.requests).toHaveLength(0);
  });

  it("reads the model of a multipart upload (audio transcription) and refuses a disallowed one", async () => {
    await setup();
    const key = await t.newKey({ models: ["whisper-small"] });
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"text":"hello"}');
      return true;
    });
    const form = (model: string) => {
      const data = new FormData();
      data.append("model", model);
      data.append("file", new Blob([Buffer.from("RIFF fake wav")], { type: "audio/wav" }), "a.wav");
      return data;
    };
    const refused = await t.fetch("/v1/audio/transcriptions", {
      method: "POST",
      key: key.value,
      body: form("whisper-large"),
    });
    expect(refused.status).toBe(403);
    expect((await json(refused)).error.code).toBe("model_not_allowed");
    const allowed = await t.fetch("/v1/audio/transcriptions", {
      method: "POST",
      key: key.value,
      body: form("whisper-small"),
    });
    expect(allowed.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.body.toString()).toContain("RIFF fake wav");
  });

  it("lets requests without a body pass, and lists only the allowed models", async () => {
    await setup();
    const key = await t.newKey({ models: ["demo-large"] });
    const res = await t.fetch("/v1/models", { key: key.value, headers: { "accept-encoding": "gzip" } });
    expect(res.status).toBe(200);
    const list = await json(res);
    expect(list.data.map((m: { id: string }) => m.id)).toEqual(["demo-large"]);
    expect(upstream.requests[0]!.headers["accept-encoding"]).toBe("identity");
    const other = await t.fetch("/v1/models/demo-small", { key: key.value });
    expect(other.status).toBe(403);
    const unrestricted = await t.newKey();
    const all = await json(await t.fetch("/v1/models", { key: unrestricted.value }));
    expect(all.data).toHaveLength(2);
  });
});

describe("reservation before forwarding", () => {
  it("refuses a worst case above the remaining budget with 403 budget_exceeded and a helpful message", async () => {
    await setup();
    // Worst case: ~140 prompt bytes at 1 ₽/1000 + 1000 completion tokens at 2 ₽/1000 ≈ 2.14 ₽ > 1 ₽ budget
    const key = await t.newKey({ budget: "1", period: "day" });
    const res = await chat({ max_tokens: 1000 }, key.value);
    expect(res.status).toBe(403);
    const { error } = await json(res);
    expect(error.code).toBe("budget_exceeded");
    expect(error.type).toBe("insufficient_quota");
    expect(error.message).toMatch(/could cost up to 2\.\d+ RUB/);
    expect(error.message).toMatch(/but 1 RUB of this key's daily budget remain/);
    expect(error.message).toMatch(/Set max_tokens to at most 4\d\d to fit/);
    expect(upstream.requests).toHaveLength(0);
    expect((await chat({ max_tokens: 400 }, key.value)).status).toBe(200);
  });

  it("refuses with 402 insufficient_balance when the worst case exceeds the balance", async () => {
    await setup();
    const key = await t.newKey({ balance: "0.5" });
    const res = await chat({ max_tokens: 1000 }, key.value);
    expect(res.status).toBe(402);
    const { error } = await json(res);
    expect(error).toMatchObject({ code: "insufficient_balance", type: "insufficient_quota" });
    expect(error.message).toMatch(/account balance is 0\.5 RUB/);
    expect(upstream.requests).toHaveLength(0);
  });

  it("refuses revoked and expired keys that the gateway has already cached", async () => {
    await setup();
    const key = await t.newKey({ ttl: "1h" });
    expect((await chat({}, key.value)).status).toBe(200);
    t.clock.advance(3600_000);
    const expired = await chat({}, key.value);
    expect(expired.status).toBe(401);
    expect((await json(expired)).error.code).toBe("key_expired");
    const other = await t.newKey();
    await t.store.keyService.revoke(other.id, ACTOR);
    expect((await json(await chat({}, other.value))).error.code).toBe("key_revoked");
  });
});

describe("metering and settlement", () => {
  it("bills the usage of a JSON response exactly", async () => {
    await setup();
    const key = await t.newKey({ budget: "100" });
    const before = await accountState();
    const res = await chat({ max_tokens: 7 }, key.value);
    const body = await json(res);
    expect(body.usage).toEqual({ prompt_tokens: 3, completion_tokens: 7, total_tokens: 10 });
    await t.gateway.settled();
    // 3 × 1000 ₽/M + 7 × 2000 ₽/M = 0.003 + 0.014 = 0.017 ₽
    expect(await accountState()).toEqual({ balance: before.balance - 17_000, reserved: 0 });
    expect((await json(await t.fetch("/v1/key", { key: key.value }))).budgets[0].spent).toBe(0.017);
    expect(lastRequestLog()).toMatchObject({
      prompt_tokens: 3,
      completion_tokens: 7,
      cost_rub: 0.017,
      usage_estimated: false,
      status: 200,
    });
  });

  it("adds stream usage to a streamed chat completion and takes the extra chunk out of what the client gets", async () => {
    await setup();
    const key = await t.newKey();
    const res = await chat({ stream: true, max_tokens: 4 }, key.value);
    const text = await res.text();
    const events = text.split("\n\n").filter(Boolean);
    expect(JSON.parse(upstream.requests[0]!.body.toString()).stream_options).toEqual({ include_usage: true });
    await t.gateway.settled();
    // The log shows what the client sent, not the gateway's addition.
    expect(lastRequestLog().request_body).not.toContain("stream_options");
    // 4 content chunks, the finish chunk and [DONE]: no usage-only chunk with empty choices.
    expect(events).toHaveLength(6);
    for (const event of events.slice(0, -1)) expect(JSON.parse(event.slice(6)).choices).toHaveLength(1);
    expect(events.at(-1)).toBe("data: [DONE]");
    await t.gateway.settled();
    expect(lastRequestLog()).toMatchObject({
      prompt_tokens: 3,
      completion_tokens: 4,
      usage_estimated: false,
      cost_rub: 0.011,
    });
  });

  it("passes the usage chunk through when the client asked for it itself", async () => {
    await setup();
    const key = await t.newKey();
    const text = await (
      await chat({ stream: true, max_tokens: 2, stream_options: { include_usage: true } }, key.value)
    ).text();
    expect(text).toContain('"usage":{"prompt_tokens":3,"completion_tokens":2');
  });

  it("does not add stream usage when that is switched off, and estimates instead", async () => {
    await setup({ upstream: { injectStreamUsage: false } });
    const key = await t.newKey();
    await (await chat({ stream: true, max_tokens: 5 }, key.value)).text();
    expect(JSON.parse(upstream.requests[0]!.body.toString()).stream_options).toBeUndefined();
    await t.gateway.settled();
    // 5 content events + the finish event, one token each, but no more than max_tokens allows; the prompt
    // from the request bytes.
    expect(lastRequestLog()).toMatchObject({ completion_tokens: 5, usage_estimated: true });
  });

  it("meters Responses-style and Anthropic-style usage", async () => {
    await setup();
    const key = await t.newKey();
    upstream.handle((req, res) => {
      if (req.url === "/v1/responses") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ object: "response", output: [], usage: { input_tokens: 20, output_tokens: 30 } }),
        );
      } else {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(
          'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":40,"output_tokens":1}}}\n\n',
        );
        res.end('event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":50}}\n\n');
      }
      return true;
    });
    await (
      await t.fetch("/v1/responses", { method: "POST", key: key.value, body: '{"model":"m","input":"hi"}' })
    ).text();
    await t.gateway.settled();
    expect(lastRequestLog()).toMatchObject({
      prompt_tokens: 20,
      completion_tokens: 30,
      usage_estimated: false,
    });
    await (
      await t.fetch("/v1/messages", {
        method: "POST",
        key: key.value,
        body: '{"model":"m","max_tokens":60,"stream":true}',
      })
    ).text();
    await t.gateway.settled();
    expect(lastRequestLog()).toMatchObject({
      prompt_tokens: 40,
      completion_tokens: 50,
      usage_estimated: false,
    });
  });

  it("meters gzip-compressed JSON and SSE responses and passes the compressed bytes on untouched", async () => {
    await setup();
    const key = await t.newKey();
    const jsonBody = gzipSync(
      JSON.stringify({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 34 } }),
    );
    const sseBody = gzipSync(
      'data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":6}}\n\ndata: [DONE]\n\n',
    );
    upstream.handle((req, res) => {
      const sse = req.url === "/v1/sse";
      res.writeHead(200, {
        "content-type": sse ? "text/event-stream" : "application/json",
        "content-encoding": "gzip",
      });
      res.end(sse ? sseBody : jsonBody);
      return true;
    });
    const raw = await new Promise<Buffer>((resolve) => {
      httpRequest(
        `${t.url}/v1/json`,
        { method: "POST", headers: { authorization: `Bearer ${key.value}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => resolve(Buffer.concat(chunks)));
        },
      ).end('{"model":"m"}');
    });
    expect(raw.equals(jsonBody)).toBe(true);
    await t.gateway.settled();
    expect(lastRequestLog()).toMatchObject({
      prompt_tokens: 12,
      completion_tokens: 34,
      usage_estimated: false,
    });
    await (await t.fetch("/v1/sse", { method: "POST", key: key.value, body: '{"model":"m"}' })).arrayBuffer();
    await t.gateway.settled();
    expect(lastRequestLog()).toMatchObject({
      prompt_tokens: 5,
      completion_tokens: 6,
      usage_estimated: false,
    });
  });

  it("estimates usage from the traffic when the upstream reports none, and marks it", async () => {
    await setup();
    const key = await t.newKey();
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { content: "x".repeat(400) } }] }));
      return true;
    });
    const body = JSON.stringify({ model: "m", max_tokens: 500, prompt: "p".repeat(200) });
    await (await t.fetch("/v1/completions", { method: "POST", key: key.value, body })).text();
    await t.gateway.settled();
    const line = lastRequestLog();
    expect(line.usage_estimated).toBe(true);
    expect(line.prompt_tokens).toBe(Math.ceil(Buffer.byteLength(body) / 4));
    expect(line.completion_tokens).toBeGreaterThan(100);
    expect(line.cost_rub).toBeGreaterThan(0);
  });

  it("passes an upstream error status through unchanged and charges only the usage it reports", async () => {
    await setup();
    const key = await t.newKey();
    upstream.handle((req, res) => {
      const withUsage = req.url === "/v1/with-usage";
      res.writeHead(withUsage ? 500 : 400, { "content-type": "application/json", "x-upstream": "yes" });
      res.end(
        JSON.stringify({
          error: { message: "bad" },
          ...(withUsage && { usage: { prompt_tokens: 10, completion_tokens: 0 } }),
        }),
      );
      return true;
    });
    const before = await accountState();
    const res = await t.fetch("/v1/no-usage", { method: "POST", key: key.value, body: '{"model":"m"}' });
    expect(res.status).toBe(400);
    expect(res.headers.get("x-upstream")).toBe("yes");
    expect(await json(res)).toEqual({ error: { message: "bad" } });
    await t.gateway.settled();
    expect(lastRequestLog()).toMatchObject({ status: 400, cost_rub: 0, usage_estimated: false });
    expect(await accountState()).toEqual(before);
    await (await t.fetch("/v1/with-usage", { method: "POST", key: key.value, body: '{"model":"m"}' })).text();
    await t.gateway.settled();
    expect(lastRequestLog()).toMatchObject({ status: 500, prompt_tokens: 10, cost_rub: 0.01 });
  });
});

describe("cancellations and failures", () => {
  it("lets go of a client that leaves while its key is looked up: nothing hangs, nothing is forwarded", async () => {
    ownRedis = await startRedisServer();
    await setup({ redis: { url: ownRedis.url } });
    const key = await t.newKey();
    // The key is not cached yet, so its lookup waits for Redis; the client leaves half-way through its body.
    await leaveWhileRedisIsPaused(key.value, true);
    await waitUntil(async () => (await inFlight()) === 0, "the request to be let go", 10_000);
    expect(upstream.requests).toHaveLength(0);
  });

  it("charges nothing, and releases the reservation, when the client leaves while it is being made", async () => {
    ownRedis = await startRedisServer();
    await setup({ redis: { url: ownRedis.url } });
    const key = await t.newKey();
    await (await chat({}, key.value)).text(); // caches the key, so that the reservation is what waits
    await t.gateway.settled();
    const before = await accountState();
    await leaveWhileRedisIsPaused(key.value);
    await waitUntil(async () => (await inFlight()) === 0, "the request to finish", 10_000);
    await t.gateway.settled();
    expect(upstream.requests).toHaveLength(1);
    expect(lastRequestLog()).toMatchObject({
      outcome: "client_aborted",
      status: 499,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost_rub: 0,
    });
    expect(await accountState()).toEqual(before);
  });

  it("releases a reservation whose reply Redis lost, instead of holding it until it expires", async () => {
    ownRedis = await startRedisServer();
    await setup({ redis: { url: ownRedis.url, commandTimeoutMs: 200 } });
    const key = await t.newKey();
    await (await chat({}, key.value)).text(); // caches the key
    await t.gateway.settled();
    const before = await accountState();
    // Scripts wait while writes are paused: the reservation times out at the gateway, then runs in Redis.
    await t.store.redis.call("CLIENT", "PAUSE", "10000", "WRITE");
    const res = await chat({}, key.value);
    expect(res.status).toBe(503);
    expect((await json(res)).error.code).toBe("service_unavailable");
    await t.store.redis.call("CLIENT", "UNPAUSE");
    await t.gateway.settled();
    // Redis runs a connection's commands in order: once the gateway's PING is answered, so is its reservation.
    await t.gateway.redis.ping();
    expect(await accountState()).toEqual(before);
    const [latest] = await t.store.redis.lrange(t.store.redisKeys.requestLog(key.accountId, key.id), 0, 0);
    expect(JSON.parse(latest ?? "{}")).toMatchObject({ status: 503, outcome: "redis_unavailable", cost: 0 });
    expect(upstream.requests).toHaveLength(1);
  });

  it("charges nothing for a request the shutdown stopped before the upstream answered (the client retries)", async () => {
    await setup();
    const key = await t.newKey();
    upstream.handle(() => true); // never answers
    const before = await accountState();
    const response = chat({}, key.value);
    await waitUntil(() => upstream.requests.length === 1, "the request to reach the upstream");
    await t.gateway.close(0);
    const res = await response;
    expect(res.status).toBe(503);
    expect((await json(res)).error.code).toBe("service_unavailable");
    expect(lastRequestLog()).toMatchObject({ outcome: "shutdown", status: 503, cost_rub: 0 });
    expect(await upstream.requests[0]?.aborted).toBe(true);
    expect(await accountState()).toEqual(before);
  });

  it("answers Expect: 100-continue itself and does not pass Expect on, so the upstream timeout still applies", async () => {
    await setup({ upstream: { timeoutMs: 300 } });
    const key = await t.newKey();
    upstream.handle(() => true); // never answers
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${t.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key.value}`,
          "content-type": "application/json",
          expect: "100-continue",
        },
      });
      req.on("continue", () => req.end(JSON.stringify({ model: "demo-small", messages: [] })));
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
    });
    expect(status).toBe(504);
    expect(upstream.requests[0]?.headers.expect).toBeUndefined();
    expect(await upstream.requests[0]?.aborted).toBe(true);
  });

  it("logs a settlement Redis refuses with what reconciliation needs, and no bodies with logging.bodies off", async () => {
    await setup({ logging: { bodies: false } });
    const key = await t.newKey({ logBodies: true });
    upstream.handle(async () => {
      // While the request runs, break the reservation records so that Redis refuses the settlement script.
      const records = t.store.redisKeys.reservationRecords(key.accountId);
      await t.store.redis.del(records);
      await t.store.redis.set(records, "not a hash");
      return false; // the demo upstream answers
    });
    const res = await chat({ messages: [{ role: "user", content: "a secret prompt" }] }, key.value);
    expect(res.status).toBe(200);
    await res.text();
    await t.gateway.settled();

    const request = lastRequestLog();
    const failure = t.logs.find(
      (line) => line.msg === "settlement refused by Redis; recorded here for reconciliation",
    );
    expect(failure).toMatchObject({
      level: 50,
      settlement: {
        accountId: key.accountId,
        keyId: key.id,
        reservationId: expect.any(String),
        cost: Math.round(request.cost_rub * 1_000_000),
        promptTokens: request.prompt_tokens,
        completionTokens: request.completion_tokens,
      },
      err: { message: expect.stringMatching(/WRONGTYPE/) },
    });
    expect(request.cost_rub).toBeGreaterThan(0);
    expect(JSON.stringify(t.logs)).not.toContain("a secret prompt");
    expect(JSON.stringify(t.logs)).not.toContain(key.value);
  });

  it("aborts the upstream at once when the client disconnects, bills what was produced and releases the rest", async () => {
    await setup();
    const key = await t.newKey();
    let aborted: Promise<boolean> | undefined;
    let hungUpAt = 0;
    upstream.handle(async (_req, res) => {
      aborted = upstream.requests.at(-1)!.aborted;
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let i = 0; i < 1000 && !res.destroyed; i++) {
        res.write(`data: {"choices":[{"index":0,"delta":{"content":"tok${i} "}}]}\n\n`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      res.end();
      return true;
    });
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${t.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.value}`, "content-type": "application/json" },
      });
      req.on("response", (res) => {
        let received = "";
        res.on("data", (chunk: Buffer) => {
          received += chunk.toString();
          // Ten tokens in, the client hangs up.
          if (received.includes("tok9 ")) {
            hungUpAt = performance.now();
            req.destroy();
            resolve();
          }
        });
      });
      req.on("error", (error) => (error.message.includes("socket hang up") ? resolve() : reject(error)));
      req.end(JSON.stringify({ model: "demo-small", stream: true, max_tokens: 1000, messages: [] }));
    });
    // Had the abort not reached it, the upstream would have finished its 1000 tokens and seen no abort. At once:
    // within a second of the hang-up, a fifth of the five seconds the upstream's stream had left.
    expect(await aborted).toBe(true);
    expect(performance.now() - hungUpAt).toBeLessThan(1000);
    await t.gateway.settled();
    const line = lastRequestLog();
    expect(line.outcome).toBe("client_aborted");
    expect(line.status).toBe(200);
    expect(line.usage_estimated).toBe(true);
    expect(line.completion_tokens).toBeGreaterThanOrEqual(10);
    expect(line.cost_rub).toBeGreaterThan(0);
    // Never more than the worst case reserved: every body byte a prompt token at 1000 µ₽, 1000 tokens at 2000 µ₽.
    const reserved = Buffer.byteLength(upstream.requests[0]!.body) * 1000 + 1000 * 2000;
    expect(Math.round(line.cost_rub * 1e6)).toBeLessThanOrEqual(reserved);
    expect((await accountState()).reserved).toBe(0);
  });

  it("answers 502 upstream_unavailable when the upstream refuses the connection, and releases the reservation", async () => {
    upstream = await startStubUpstream();
    t = await startTestGateway({
      upstreamUrl: `http://127.0.0.1:${await freePort()}`,
      config: { pricing: PRICING },
    });
    const key = await t.newKey();
    const before = await accountState();
    const res = await chat({}, key.value);
    expect(res.status).toBe(502);
    expect((await json(res)).error).toMatchObject({ code: "upstream_unavailable", type: "upstream_error" });
    await t.gateway.settled();
    expect(await accountState()).toEqual(before);
    expect(lastRequestLog()).toMatchObject({ outcome: "upstream_unavailable", status: 502, cost_rub: 0 });
  });

  it("answers 504 upstream_timeout when no response comes in time, and aborts the upstream request", async () => {
    await setup({ upstream: { timeoutMs: 200 } });
    const key = await t.newKey();
    upstream.handle(() => true); // never answers
    const before = await accountState();
    const res = await chat({}, key.value);
    expect(res.status).toBe(504);
    expect((await json(res)).error.code).toBe("upstream_timeout");
    expect(await upstream.requests[0]!.aborted).toBe(true);
    await t.gateway.settled();
    expect(await accountState()).toEqual(before);
  });

  it("cuts the client's stream when the upstream resets mid-stream, and bills what was produced", async () => {
    await setup();
    const key = await t.newKey();
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
      return true;
    });
    const res = await chat({ stream: true }, key.value);
    await expect(res.text()).rejects.toThrow("terminated");
    await t.gateway.settled();
    expect(lastRequestLog()).toMatchObject({ outcome: "upstream_reset", usage_estimated: true });
    expect((await accountState()).reserved).toBe(0);
  });
});

describe("upstream connections", () => {
  it("closes a pooled upstream connection idle for upstream.keepAliveIdleMs, before the model server would", async () => {
    await setup({ upstream: { keepAliveIdleMs: 100 } });
    // A model server that would keep an idle connection for a minute: only the gateway can close it first.
    upstream.server.keepAliveTimeout = 60_000;
    const closedByGateway = new Promise<void>((resolve) =>
      upstream.server.once("connection", (socket) => socket.once("end", () => resolve())),
    );
    const key = await t.newKey();
    const res = await chat({}, key.value);
    expect(res.status).toBe(200);
    await res.text();
    // "end": the other side (the gateway) closed its half of the connection.
    await closedByGateway;
    expect(upstream.requests).toHaveLength(1);
  });

  it("does not cut a connection in use for longer than that: a slow stream completes and is billed", async () => {
    await setup({ upstream: { keepAliveIdleMs: 50 } });
    const key = await t.newKey();
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n');
      // Silence for several idle periods, as a model thinking before its next token.
      setTimeout(() => {
        res.write('data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}\n\n');
        res.end("data: [DONE]\n\n");
      }, 300);
      return true;
    });
    const res = await chat({ stream: true, stream_options: { include_usage: true } }, key.value);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("data: [DONE]");
    await t.gateway.settled();
    expect(lastRequestLog()).toMatchObject({
      outcome: "completed",
      prompt_tokens: 3,
      completion_tokens: 1,
      usage_estimated: false,
    });
  });
});

describe("request log", () => {
  it("keeps a key's recent-requests list for requestLog.retentionDays after its latest request", async () => {
    await setup({ requestLog: { retentionDays: 3 } });
    const key = await t.newKey();
    await (await chat({}, key.value)).text();
    await t.gateway.settled();
    const ttl = await t.store.redis.pttl(t.store.redisKeys.requestLog(key.accountId, key.id));
    expect(ttl).toBeGreaterThan(3 * 86_400_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(3 * 86_400_000);
  });

  it("writes one line per request with the key, the usage and the timings, and bodies when allowed", async () => {
    await setup();
    const key = await t.newKey();
    await (await chat({ max_tokens: 3 }, key.value)).text();
    await t.gateway.settled();
    const line = lastRequestLog();
    expect(line).toMatchObject({
      msg: "request",
      key_id: key.id,
      key_name: "test key",
      account: "acme",
      method: "POST",
      path: "/v1/chat/completions",
      model: "demo-small",
      status: 200,
      outcome: "completed",
      prompt_tokens: 3,
      completion_tokens: 3,
      usage_estimated: false,
    });
    for (const field of ["latency_ms", "upstream_ttfb_ms", "gateway_ms"])
      expect(line[field]).toBeGreaterThan(0);
    expect(line.request_body).toContain("say hi please");
    expect(line.response_body).toContain("chat.completion");
  });

  it("keeps bodies out when the key's log_bodies is off, or logging.bodies is off", async () => {
    await setup();
    const key = await t.newKey({ logBodies: false });
    await (await chat({}, key.value)).text();
    await t.gateway.settled();
    expect(lastRequestLog().request_body).toBeUndefined();
    expect(lastRequestLog().response_body).toBeUndefined();
    expect(JSON.stringify(t.logs)).not.toContain("say hi please");
    await t.close();
    await upstream.close();
    await setup({ logging: { bodies: false } });
    const other = await t.newKey();
    await (await chat({}, other.value)).text();
    await t.gateway.settled();
    expect(lastRequestLog().request_body).toBeUndefined();
  });

  it("cuts logged bodies to logging.maxBodyBytes", async () => {
    await setup({ logging: { maxBodyBytes: 16 } });
    const key = await t.newKey();
    await (await chat({}, key.value)).text();
    await t.gateway.settled();
    expect(lastRequestLog().request_body).toHaveLength(16);
    expect(lastRequestLog().response_body).toHaveLength(16);
  });

  it("logs refusals with their code and never a key or an Authorization header", async () => {
    await setup();
    const key = await t.newKey({ models: ["x"] });
    await chat({}, key.value);
    expect(lastRequestLog()).toMatchObject({
      msg: "request refused",
      code: "model_not_allowed",
      status: 403,
      key_id: key.id,
    });
    await chat({}, `sk-tunnel-${"f".repeat(64)}`);
    expect(lastRequestLog()).toMatchObject({ code: "invalid_api_key", key_id: null });
    const all = JSON.stringify(t.logs);
    expect(all).not.toContain(key.value.slice(10));
    expect(all).not.toContain("f".repeat(64));
    expect(all.toLowerCase()).not.toContain("bearer");
  });
});
