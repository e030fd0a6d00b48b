// The demo model server, over real HTTP: its model list, chat and text completions as JSON and as streams
// (with usage when asked for it), one word per token so that usage is easy to check, and errors in
// OpenAI's shape for what it does not serve.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEMO_MODELS,
  type DemoUpstream,
  demoCompletionTokens,
  demoPromptTokens,
  startDemoUpstream,
} from "../../src/demo/demo-upstream.js";

let upstream: DemoUpstream;
beforeAll(async () => {
  upstream = await startDemoUpstream(0, "127.0.0.1", { defaultCompletionTokens: 4 });
});
afterAll(() => upstream.close());

function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${upstream.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The data of each event of an SSE stream. */
function events(text: string): string[] {
  return text
    .split("\n\n")
    .filter((event) => event.startsWith("data: "))
    .map((event) => event.slice("data: ".length));
}

describe("token counts", () => {
  it("count one prompt token per word of the prompt or the messages' text, at least one", () => {
    expect(demoPromptTokens({ prompt: "the gateway  meters\ttokens" })).toBe(4);
    expect(
      demoPromptTokens({ messages: [{ content: "one two" }, { content: "three" }, { content: [] }, null] }),
    ).toBe(3);
    expect(demoPromptTokens({})).toBe(1);
    expect(demoPromptTokens({ prompt: "" })).toBe(1);
  });

  it("produce the default number of completion tokens, or fewer when the request caps them", () => {
    expect(demoCompletionTokens({})).toBe(12);
    expect(demoCompletionTokens({}, { defaultCompletionTokens: 3 })).toBe(3);
    expect(demoCompletionTokens({ max_tokens: 5 })).toBe(5);
    expect(demoCompletionTokens({ max_completion_tokens: 2, max_tokens: 5 })).toBe(2);
    expect(demoCompletionTokens({ max_tokens: 50 })).toBe(12);
    for (const cap of [0, -1, 1.5, "many", null]) expect(demoCompletionTokens({ max_tokens: cap })).toBe(12);
  });
});

describe("the demo model server", () => {
  it("lists its models", async () => {
    const res = await fetch(`${upstream.url}/v1/models?x=1`);
    const body = await res.json();
    expect((body as any).data.map((m: { id: string }) => m.id)).toEqual(DEMO_MODELS);
  });

  it("answers a chat completion with the model asked for, filler words and exact usage", async () => {
    const res = await post("/v1/chat/completions", {
      model: "demo-large",
      messages: [{ role: "user", content: "say three words" }],
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "demo-large",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "the gateway meters every" },
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  it("answers a text completion, with the first model when none is named", async () => {
    const body = (await (await post("/v1/completions", { prompt: "x", max_tokens: 2 })).json()) as any;
    expect(body).toMatchObject({
      object: "text_completion",
      model: DEMO_MODELS[0],
      choices: [{ text: "the gateway" }],
    });
  });

  it("streams one chunk per token, a final chunk, usage only when asked for, and [DONE]", async () => {
    const request = { model: "demo-small", messages: [{ content: "hi" }], max_tokens: 3, stream: true };
    const res = await post("/v1/chat/completions", request);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const plain = events(await res.text());
    expect(plain.at(-1)).toBe("[DONE]");
    const chunks = plain.slice(0, -1).map((data) => JSON.parse(data));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? null)).toEqual([
      "the",
      " gateway",
      " meters",
      null,
    ]);
    expect(chunks.at(-1).choices[0].finish_reason).toBe("stop");
    expect(chunks.some((c) => c.usage)).toBe(false);

    const withUsage = events(
      await (
        await post("/v1/chat/completions", { ...request, stream_options: { include_usage: true } })
      ).text(),
    );
    const usage = JSON.parse(withUsage.at(-2) as string);
    expect(usage).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 },
    });

    const text = events(
      await (await post("/v1/completions", { prompt: "p", max_tokens: 1, stream: true })).text(),
    );
    expect(JSON.parse(text[0] as string)).toMatchObject({
      object: "text_completion",
      choices: [{ text: "the" }],
    });
  });

  it("refuses what it does not serve with 404, and a body that is not JSON with 400, in OpenAI's shape", async () => {
    for (const res of [
      await fetch(`${upstream.url}/v1/chat/completions`),
      await post("/v1/embeddings", {}),
    ]) {
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).error).toMatchObject({ type: "invalid_request_error", code: null });
    }
    const bad = await post("/v1/chat/completions", "{not json");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toBe("body is not JSON");
  });
});

describe("startDemoUpstream", () => {
  it("closes with its connections, so that nothing is left listening", async () => {
    const other = await startDemoUpstream();
    const url = other.url;
    await fetch(`${url}/v1/models`, { keepalive: true });
    await other.close();
    expect(other.server.listening).toBe(false);
    await expect(fetch(`${url}/v1/models`)).rejects.toThrow();
  });
});
