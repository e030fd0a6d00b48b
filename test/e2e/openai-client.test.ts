// The official openai client through the gateway: what real applications use.

import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { ACTOR } from "../helpers/actor.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

let t: TestGateway;
let upstream: StubUpstream;

afterEach(async () => {
  await t?.close();
  await upstream?.close();
});

const PRICING = {
  default: { input: 1000, output: 2000 },
  models: { "demo-large": { input: 5000, output: 7000 } },
};

async function client() {
  upstream = await startStubUpstream();
  t = await startTestGateway({ upstreamUrl: upstream.url, config: { pricing: PRICING } });
  const key = await t.newKey({ budget: "10", period: "month" });
  return { key, openai: new OpenAI({ apiKey: key.value, baseURL: `${t.url}/v1`, maxRetries: 0 }) };
}

describe("the openai client", () => {
  it("gets a completion and the gateway bills what the upstream reported", async () => {
    const { openai, key } = await client();
    const completion = await openai.chat.completions.create({
      model: "demo-large",
      messages: [{ role: "user", content: "one two three four" }],
      max_tokens: 6,
    });
    expect(completion.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 6 });
    await t.gateway.settled();
    // 4 × 5000 ₽/M + 6 × 7000 ₽/M = 0.02 + 0.042 = 0.062 ₽
    const view = await (await t.fetch("/v1/key", { key: key.value })).json();
    expect((view as any).budgets[0].spent).toBe(0.062);
  });

  it("streams, sees exactly the chunks it would see without the gateway, and is billed exactly", async () => {
    const { openai, key } = await client();
    const stream = await openai.chat.completions.create({
      model: "demo-small",
      messages: [{ role: "user", content: "a b" }],
      max_tokens: 5,
      stream: true,
    });
    let text = "";
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      // A naive client reads choices[0] of every chunk; the gateway's usage chunk must not reach it.
      text += chunk.choices[0]!.delta.content ?? "";
      expect(chunk.usage ?? null).toBeNull();
    }
    expect(chunks).toBe(6);
    expect(text.split(" ")).toHaveLength(5);
    await t.gateway.settled();
    // 2 × 1000 ₽/M + 5 × 2000 ₽/M = 0.012 ₽
    const view = await (await t.fetch("/v1/key", { key: key.value })).json();
    expect((view as any).budgets[0].spent).toBe(0.012);
  });

  it("receives the usage chunk when it asks for it", async () => {
    const { openai } = await client();
    const stream = await openai.chat.completions.create({
      model: "demo-small",
      messages: [{ role: "user", content: "a b c" }],
      max_tokens: 2,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: unknown = null;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 2 });
  });

  it("surfaces the gateway's errors as the client's typed errors", async () => {
    const { openai, key } = await client();
    await t.store.keyService.revoke(key.id, ACTOR);
    const error = await openai.models.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe("key_revoked");
  });
});
