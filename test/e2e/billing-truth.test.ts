// The bugs of issue 12, each with the input that found it, through a real gateway, the suite's Redis and a
// stub upstream that sends the bytes the real model servers send (test/fixtures/upstreams).

import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { fixtureNamed, replayFixture, type UpstreamFixture } from "../fixtures/upstreams/index.js";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { parseExposition, total } from "../helpers/prometheus.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

let t: TestGateway;
let upstream: StubUpstream;

afterEach(async () => {
  await t?.close();
  await upstream?.close();
});

async function setup(config: Record<string, unknown> = {}) {
  upstream = await startStubUpstream();
  t = await startTestGateway({ upstreamUrl: upstream.url, config: { pricing: PRICING, ...config } });
}

/** The stub answers every request with the fixture. */
function serve(fixture: UpstreamFixture): void {
  upstream.handle(async (_req, res) => {
    await replayFixture(fixture, res);
    return true;
  });
}

function post(path: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  return t.fetch(path, {
    method: "POST",
    key,
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

function lastLine(): Record<string, any> {
  return t.logs.filter((line) => line.msg === "request" || line.msg === "request refused").at(-1) as Record<
    string,
    any
  >;
}

/** What the key has spent and the account holds in reservations, in µ₽. */
async function money(key: { id: string; accountId: string }) {
  const record = await t.store.keys.get({ accountId: key.accountId, keyId: key.id });
  const account = await t.store.accounts.require(key.accountId);
  return {
    spent: record?.spent ?? 0,
    balance: account.balance,
    reserved: (await t.store.billing.reserved(key.accountId)).account,
  };
}

// PRICING: 1000 ₽ per million prompt tokens = 1000 µ₽ per token, 2000 µ₽ per completion token.
const PROMPT = 1000;

describe("billing that tells the truth", () => {
  it("bills an embedding its prompt tokens, reserving no output for it", async () => {
    await setup();
    const key = await t.newKey();
    serve(fixtureNamed("ollama", "embeddings"));
    const before = await money(key);
    let held = 0;
    upstream.handle(async (_req, res) => {
      held = (await money(key)).reserved;
      await replayFixture(fixtureNamed("ollama", "embeddings"), res);
      return true;
    });
    const body = { model: "demo-small", input: "the quick brown fox" };
    const res = await post("/v1/embeddings", key.value, body);
    expect(res.status).toBe(200);
    await res.text();
    await t.gateway.settled();
    // The fixture reports {"prompt_tokens": 4, "total_tokens": 4} and no completion tokens.
    expect((await money(key)).spent - before.spent).toBe(4 * PROMPT);
    expect(lastLine()).toMatchObject({
      endpoint_class: "input-only",
      prompt_tokens: 4,
      completion_tokens: 0,
      usage_estimated: false,
    });
    // The worst case is the body's bytes as prompt tokens, and nothing more.
    expect(held).toBe(Buffer.byteLength(JSON.stringify(body)) * PROMPT);
  });

  it("forwards token counting and charges nothing for it", async () => {
    await setup();
    const key = await t.newKey();
    serve(fixtureNamed("vllm", "count-tokens"));
    const before = await money(key);
    const res = await post("/v1/messages/count_tokens", key.value, {
      model: "demo-small",
      messages: [{ role: "user", content: "hello" }],
    });
    expect(await res.json()).toMatchObject({ input_tokens: 11 });
    await t.gateway.settled();
    expect(await money(key)).toEqual(before);
    expect(lastLine()).toMatchObject({ endpoint_class: "free", cost_rub: 0, usage_estimated: false });
  });

  it("does not believe a report of Number.MAX_SAFE_INTEGER tokens, and survives any number of them", async () => {
    await setup();
    const key = await t.newKey({ balance: "5" });
    upstream.handle((_req, res) => {
      const body = JSON.stringify({
        choices: [{ message: { content: "hi" } }],
        usage: { prompt_tokens: Number.MAX_SAFE_INTEGER, completion_tokens: Number.MAX_SAFE_INTEGER },
      });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
      return true;
    });
    const before = await money(key);
    for (let i = 0; i < 12; i++) {
      const res = await post("/v1/chat/completions", key.value, {
        model: "demo-small",
        max_tokens: 10,
        messages: [],
      });
      expect(res.status).toBe(200);
      await res.text();
    }
    await t.gateway.settled();
    const after = await money(key);
    // Each one is charged by estimate, within its reservation: never more than 12 worst cases.
    expect(after.balance).toBeGreaterThan(0);
    expect(before.balance - after.balance).toBe(after.spent - before.spent);
    expect(after.reserved).toBe(0);
    expect(lastLine()).toMatchObject({ usage_rejected: "prompt_above_limit", usage_estimated: true });
    const scrape = parseExposition(await (await fetch(`${t.gateway.metricsUrl}/metrics`)).text());
    expect(total(scrape, "tunnel_gateway_usage_rejected_total", { reason: "prompt_above_limit" })).toBe(12);
  });

  it("refuses a body nested 100 000 levels deep with 400 before reserving anything", async () => {
    await setup();
    const key = await t.newKey();
    const deep = `{"model":"demo-small","messages":[{"role":"user","content":${"[".repeat(100_000)}${"]".repeat(100_000)}}]}`;
    const before = await money(key);
    const res = await post("/v1/chat/completions", key.value, deep);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: "invalid_request",
      message: "The request body nests deeper than 128 levels, the most the gateway accepts.",
    });
    await t.gateway.settled();
    expect(await money(key)).toEqual(before);
    expect(upstream.requests).toHaveLength(0);
  });

  it("refuses output caps that are not limits a model server honours, naming the field, before reserving", async () => {
    await setup();
    const key = await t.newKey();
    for (const [field, value] of [
      ["max_tokens", -1],
      ["max_tokens", 1e300],
      ["max_tokens", "lots"],
      ["max_completion_tokens", 0],
      ["n", 3.5],
    ] as const) {
      const res = await post("/v1/chat/completions", key.value, {
        model: "demo-small",
        messages: [],
        [field]: value,
      });
      expect(res.status, `${field}: ${value}`).toBe(400);
      expect((await json(res)).error.message).toMatch(
        new RegExp(`^${field} must be a whole number from 1 to \\d+; got`),
      );
    }
    expect(upstream.requests).toHaveLength(0);
    expect((await t.store.billing.reserved(key.accountId)).account).toBe(0);
  });

  it("refuses a cap above the model's context length when the operator set one", async () => {
    await setup({
      pricing: { ...PRICING, models: { "demo-small": { input: 1, output: 1, contextTokens: 8192 } } },
    });
    const key = await t.newKey();
    const res = await post("/v1/chat/completions", key.value, {
      model: "demo-small",
      messages: [],
      max_tokens: 8193,
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toBe(
      'max_tokens must be a whole number from 1 to 8192, the context length of model "demo-small"; got 8193.',
    );
  });

  it("passes a gzip bomb of one endless line to the client whole, meters it by estimate and releases the reservation", async () => {
    await setup({ metering: { maxDecompressedBytes: 1 << 20 } });
    const key = await t.newKey();
    const plain = Buffer.concat([Buffer.from("data: "), Buffer.alloc(32 << 20, "a"), Buffer.from("\n\n")]);
    const bomb = gzipSync(plain);
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" }).end(bomb);
      return true;
    });
    const res = await post("/v1/chat/completions", key.value, {
      model: "demo-small",
      stream: true,
      max_tokens: 10,
      messages: [],
    });
    const received = Buffer.from(await res.arrayBuffer());
    // fetch decompresses: the client got every byte the upstream sent.
    expect(received.equals(plain)).toBe(true);
    await t.gateway.settled();
    expect(lastLine()).toMatchObject({ usage_estimated: true, status: 200 });
    expect((await money(key)).reserved).toBe(0);
  });

  it("refuses the model server's management endpoints with 403 path_not_allowed and forwards nothing", async () => {
    await setup();
    const key = await t.newKey();
    for (const [method, path] of [
      ["POST", "/sleep"],
      ["POST", "/v1/load_lora_adapter"],
      ["POST", "/slots/0?action=erase"],
      ["DELETE", "/api/delete"],
      ["POST", "/api/pull"],
      ["POST", "/%73leep"],
    ] as const) {
      const res = await t.fetch(path, { method, key: key.value, body: "{}" });
      expect(res.status, path).toBe(403);
      expect((await json(res)).error.code).toBe("path_not_allowed");
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it("accepts the key as x-api-key, never forwards it, and answers /v1/messages errors in Anthropic's shape", async () => {
    await setup();
    const key = await t.newKey();
    serve(fixtureNamed("vllm", "messages"));
    const ok = await t.fetch("/v1/messages", {
      method: "POST",
      headers: {
        "x-api-key": key.value,
        "content-type": "application/json",
        "anthropic-version": "2023-06-01",
      },
      body: JSON.stringify({
        model: "demo-small",
        max_tokens: 20,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    expect(ok.status).toBe(200);
    await ok.text();
    const seen = upstream.requests[0]!;
    expect(JSON.stringify(seen.headers)).not.toContain(key.value);
    const refused = await t.fetch("/v1/messages", {
      method: "POST",
      headers: { "x-api-key": "sk-tunnel-wrong", "content-type": "application/json" },
      body: "{}",
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      type: "error",
      error: {
        type: "authentication_error",
        message: expect.stringMatching(/^Invalid API key/),
        code: "invalid_api_key",
      },
    });
  });
});

describe("the stream the client asked for", () => {
  for (const server of ["vllm", "sglang", "tgi", "llama.cpp", "ollama"] as const) {
    it(`reaches the client exactly as ${server} sends it without include_usage, and is billed exactly`, async () => {
      await setup();
      const key = await t.newKey();
      const fixture = fixtureNamed(server, "chat-stream-include-usage");
      upstream.handle(async (req, res, body) => {
        // The gateway asked for the usage: the stub answers as the server does when asked.
        expect(JSON.parse(body.toString()).stream_options).toEqual({ include_usage: true });
        expect(req.headers["accept-encoding"]).toBe("identity");
        await replayFixture(fixture, res, { chunkDelayMs: 1 });
        return true;
      });
      const before = await money(key);
      const res = await post("/v1/chat/completions", key.value, {
        model: "demo-small",
        stream: true,
        max_tokens: 50,
        messages: [{ role: "user", content: "hi" }],
      });
      expect(await res.text()).toBe(fixture.withoutInjectedUsage?.join(""));
      await t.gateway.settled();
      const usage = fixture.usage as { promptTokens: number; completionTokens: number };
      expect((await money(key)).spent - before.spent).toBe(
        usage.promptTokens * PROMPT + usage.completionTokens * 2 * PROMPT,
      );
    });
  }
});
