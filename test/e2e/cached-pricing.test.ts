// Cached prompt tokens priced as configured, end to end: a real gateway, the suite's Redis and a stub model
// server replaying what vLLM, SGLang and llama.cpp send when they report their prefix cache
// (test/fixtures/upstreams), streamed and not. Each request is charged exactly, in micro-rubles, and its
// cached tokens show in its log line, its recent-requests entry (/v1/requests/{id}) and the daily usage
// (/v1/usage); a report with more cached than prompt tokens is a faulty one; a server that reports no cache
// is charged the input price for every prompt token.

import { afterEach, describe, expect, it } from "vitest";
import { fixtureNamed, replayFixture, type UpstreamFixture } from "../fixtures/upstreams/index.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

let t: TestGateway;
let upstream: StubUpstream;

afterEach(async () => {
  await t?.close();
  await upstream?.close();
});

// Rubles per million tokens are micro-rubles per token: 1000 µ₽ an uncached prompt token, 100 a cached one,
// 1250 one written to the cache, 2000 a completion token, and 1000 µ₽ a request.
const PRICE = { input: 1000, output: 2000, cachedInput: 100, cacheWrite: 1250, perRequest: "0.001" };
const FEE = 1000;

async function setup(): Promise<{ value: string; id: string; accountId: string }> {
  upstream = await startStubUpstream();
  t = await startTestGateway({
    upstreamUrl: upstream.url,
    // The fixtures' prompts are far longer than the few bytes sent here: a credible report is charged in full.
    config: { pricing: { default: { ...PRICE, maxOutputTokens: 100 } }, billing: { overage: "charge" } },
  });
  return t.newKey({ balance: "100" });
}

/** Sends the fixture's request and has the stub answer with the fixture; returns the request id. */
async function exchange(key: string, fixture: UpstreamFixture, chunks?: string[]): Promise<string> {
  upstream.handle(async (_req, res) => {
    await replayFixture(chunks ? { ...fixture, response: { ...fixture.response, chunks } } : fixture, res);
    return true;
  });
  const body = { ...(fixture.request.body as Record<string, unknown>) };
  // The client asks for no usage: the gateway asks for it where the fixture's server needed it.
  delete body.stream_options;
  const res = await t.fetch(fixture.request.path, {
    method: "POST",
    key,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  await res.text();
  await t.gateway.settled();
  return res.headers.get("x-request-id") as string;
}

async function spent(key: { id: string; accountId: string }): Promise<number> {
  return (await t.store.keys.get({ accountId: key.accountId, keyId: key.id }))?.spent ?? 0;
}

function lineOf(requestId: string): Record<string, any> {
  return t.logs.find((line) => line.msg === "request" && line.request_id === requestId) as Record<
    string,
    any
  >;
}

const CASES: [UpstreamFixture["server"], string][] = [
  ["vllm", "chat-cached"],
  ["vllm", "chat-stream-include-usage-cached"],
  ["sglang", "chat-cached"],
  ["sglang", "chat-stream-cached"],
  ["sglang", "chat-stream-include-usage-cached"],
  // Anthropic's format: input_tokens excludes cache_read_input_tokens.
  ["llama.cpp", "messages"],
  ["llama.cpp", "messages-stream"],
];

describe("cached prompt tokens", () => {
  it.each(CASES)("are charged at cachedInput from %s's %s, exactly", async (server, name) => {
    const key = await setup();
    const fixture = fixtureNamed(server, name);
    const usage = fixture.usage as { promptTokens: number; completionTokens: number; cachedTokens: number };
    const before = await spent(key);
    const requestId = await exchange(key.value, fixture);

    const uncached = usage.promptTokens - usage.cachedTokens;
    const expected = uncached * 1000 + usage.cachedTokens * 100 + usage.completionTokens * 2000 + FEE;
    expect((await spent(key)) - before).toBe(expected);
    expect((await t.store.accounts.require("acme")).balance).toBe(100_000_000 - expected);
    expect(await t.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });

    expect(lineOf(requestId)).toMatchObject({
      prompt_tokens: usage.promptTokens,
      cached_tokens: usage.cachedTokens,
      completion_tokens: usage.completionTokens,
      cost_rub: expected / 1e6,
      usage_estimated: false,
    });
    const entry = await json(await t.fetch(`/v1/requests/${requestId}`, { key: key.value }));
    expect(entry).toMatchObject({ prompt_tokens: usage.promptTokens, cached_tokens: usage.cachedTokens });
    const days = await json(await t.fetch("/v1/usage", { key: key.value }));
    expect(days.total).toMatchObject({
      prompt_tokens: usage.promptTokens,
      cached_tokens: usage.cachedTokens,
    });
  });

  it("are charged at the input price when the server reports no cache", async () => {
    const key = await setup();
    const requestId = await exchange(key.value, fixtureNamed("vllm", "chat"));
    // vLLM without --enable-prompt-tokens-details: "prompt_tokens_details": null.
    expect(await spent(key)).toBe(39 * 1000 + 8 * 2000 + FEE);
    expect(lineOf(requestId)).toMatchObject({ prompt_tokens: 39, cached_tokens: 0, usage_estimated: false });
  });

  it("make a report faulty when there are more of them than prompt tokens: estimated at the input price", async () => {
    const key = await setup();
    const fixture = fixtureNamed("vllm", "chat-cached");
    const lying = fixture.response.chunks.map((chunk) =>
      chunk.replace('"cached_tokens":1088', '"cached_tokens":1094'),
    );
    const requestId = await exchange(key.value, fixture, lying);
    const line = lineOf(requestId);
    expect(line).toMatchObject({
      usage_rejected: "cached_above_prompt",
      usage_estimated: true,
      cached_tokens: 0,
    });
    // The estimate: its prompt at the input price, never above the reservation.
    expect(await spent(key)).toBe(Math.round(line.cost_rub * 1e6));
    expect(line.cost_rub * 1e6).toBeGreaterThanOrEqual(line.prompt_tokens * 1000 + FEE);
    expect(await t.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });
});
