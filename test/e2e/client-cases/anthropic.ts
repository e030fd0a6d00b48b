// @anthropic-ai/sdk 0.x (the widely deployed line, which sends the key as x-api-key) and 1.x (which sends it
// as a Bearer token): messages, JSON and stream, and token counting (free), plus the hostile cases: usage of
// Number.MAX_SAFE_INTEGER tokens, an upstream reset, a client abort, an invalid cap, wrong keys — whose
// errors come in Anthropic's shape on /v1/messages paths.

import Anthropic from "@anthropic-ai/sdk";
import Anthropic0 from "anthropic-sdk-0";
import { expect } from "vitest";
import { COMPLETION_TOKENS, completionText, HOSTILE } from "../../helpers/model-server.js";
import { type Case, exact, failure, LLAMA_CPP_MODEL, MODEL, OLLAMA_MODEL, user, WRONG_KEY } from "./case.js";

/** Anthropic clients take the server's root: they add /v1/messages themselves. */
const anthropic0 = (base: string, key: string, headers: Record<string, string>) =>
  new Anthropic0({ apiKey: key, baseURL: base, maxRetries: 0, defaultHeaders: headers });
const anthropic1 = (base: string, key: string, headers: Record<string, string>) =>
  new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0, defaultHeaders: headers });

export const ANTHROPIC_CASES: Case[] = [
  {
    name: "anthropic 0.x messages",
    library: "anthropic0",
    billing: exact(),
    async run({ base, key, headers }) {
      const message = await anthropic0(base, key, headers).messages.create({
        model: MODEL,
        max_tokens: 9,
        messages: user("hello there model"),
      });
      expect(message.content).toEqual([{ type: "text", text: completionText(9) }]);
      expect(message.stop_reason).toBe("max_tokens");
      expect(message.usage).toMatchObject({ input_tokens: 3, output_tokens: 9 });
    },
  },
  {
    name: "anthropic 0.x messages stream",
    library: "anthropic0",
    billing: exact(),
    async run({ base, key, headers }) {
      const stream = anthropic0(base, key, headers).messages.stream({
        model: MODEL,
        max_tokens: 4,
        system: "be brief",
        messages: user("stream a reply"),
      });
      let text = "";
      stream.on("text", (delta) => {
        text += delta;
      });
      const message = await stream.finalMessage();
      expect(text).toBe(completionText(4));
      expect(message.usage).toMatchObject({ input_tokens: 5, output_tokens: 4 });
    },
  },
  {
    name: "anthropic 0.x messages stream reporting MAX_SAFE_INTEGER tokens",
    library: "anthropic0",
    billing: { kind: "rejected", reason: "prompt_above_limit" },
    async run({ base, key, headers }) {
      const message = await anthropic0(base, key, headers)
        .messages.stream({ model: MODEL, max_tokens: 3, messages: user(`stream ${HOSTILE.overflow}`) })
        .finalMessage();
      expect(message.content).toEqual([{ type: "text", text: completionText(3) }]);
      expect(message.usage).toMatchObject({
        input_tokens: Number.MAX_SAFE_INTEGER,
        output_tokens: Number.MAX_SAFE_INTEGER,
      });
    },
  },
  {
    name: "anthropic 0.x messages (Ollama's shape)",
    library: "anthropic0",
    billing: exact(),
    async run({ base, key, headers }) {
      const message = await anthropic0(base, key, headers).messages.create({
        model: OLLAMA_MODEL,
        max_tokens: 30,
        messages: user("what does Ollama say"),
      });
      expect(message.content).toEqual([{ type: "text", text: completionText(COMPLETION_TOKENS) }]);
      expect(message.usage).toMatchObject({ input_tokens: 4, output_tokens: COMPLETION_TOKENS });
    },
  },
  {
    name: "anthropic 0.x messages stream (Ollama's shape: an estimate first, the prompt at the end)",
    library: "anthropic0",
    billing: exact(),
    async run({ base, key, headers }) {
      const events: Anthropic0.MessageStreamEvent[] = [];
      const stream = anthropic0(base, key, headers).messages.stream({
        model: OLLAMA_MODEL,
        max_tokens: 5,
        messages: user("stream it please now"),
      });
      // A copy: the client builds its message on the message_start event's own object.
      stream.on("streamEvent", (event) => events.push(structuredClone(event)));
      const message = await stream.finalMessage();
      // Ollama's estimate: (4 characters of "user" + 20 of the text) / 4.
      const start = events.find((event) => event.type === "message_start");
      expect(start?.type === "message_start" && start.message.usage.input_tokens).toBe(6);
      expect(message.usage).toMatchObject({ input_tokens: 4, output_tokens: 5 });
    },
  },
  {
    name: "anthropic 0.x count tokens",
    library: "anthropic0",
    billing: exact("free"),
    async run({ base, key, headers }) {
      const count = await anthropic0(base, key, headers).messages.countTokens({
        model: MODEL,
        messages: user("count these four words"),
      });
      expect(count.input_tokens).toBe(4);
    },
  },
  {
    name: "anthropic 0.x wrong key",
    library: "anthropic0",
    billing: { kind: "refused", status: 401, code: "invalid_api_key" },
    async run({ base, headers }) {
      const error = await failure(
        anthropic0(base, WRONG_KEY, headers).messages.create({
          model: MODEL,
          max_tokens: 5,
          messages: user("hi"),
        }),
      );
      expect(error).toBeInstanceOf(Anthropic0.AuthenticationError);
      expect(error).toMatchObject({
        status: 401,
        error: {
          type: "error",
          error: { type: "authentication_error", message: expect.stringMatching(/^Invalid API key/) },
        },
      });
    },
  },
  {
    name: "anthropic 0.x invalid cap",
    library: "anthropic0",
    billing: { kind: "refused", status: 400, code: "invalid_request" },
    async run({ base, key, headers }) {
      const error = await failure(
        anthropic0(base, key, headers).messages.create({ model: MODEL, max_tokens: 0, messages: user("hi") }),
      );
      expect(error).toBeInstanceOf(Anthropic0.BadRequestError);
      expect(error).toMatchObject({
        status: 400,
        error: {
          type: "error",
          error: { type: "invalid_request_error", message: expect.stringMatching(/^max_tokens must be/) },
        },
      });
    },
  },
  {
    name: "anthropic 0.x messages stream the upstream resets",
    library: "anthropic0",
    billing: { kind: "upstream_reset" },
    async run({ base, key, headers }) {
      const stream = anthropic0(base, key, headers).messages.stream({
        model: MODEL,
        max_tokens: 10,
        messages: user(`then ${HOSTILE.reset}`),
      });
      const error = await failure(stream.finalMessage());
      expect(error).toBeInstanceOf(Anthropic0.AnthropicError);
      expect(error).toMatchObject({ message: "terminated", cause: { message: "terminated" } });
    },
  },

  // --- @anthropic-ai/sdk 1.x: the key as a Bearer token ---------------------------------------------
  {
    name: "anthropic 1.x messages",
    library: "anthropic1",
    billing: exact(),
    async run({ base, key, headers }) {
      const message = await anthropic1(base, key, headers).messages.create({
        model: MODEL,
        max_tokens: 20,
        messages: user("a longer answer than the model gives"),
      });
      expect(message.content).toEqual([{ type: "text", text: completionText(COMPLETION_TOKENS) }]);
      expect(message.stop_reason).toBe("end_turn");
      expect(message.usage).toMatchObject({ input_tokens: 7, output_tokens: COMPLETION_TOKENS });
    },
  },
  {
    name: "anthropic 1.x messages stream",
    library: "anthropic1",
    billing: exact(),
    async run({ base, key, headers }) {
      const stream = anthropic1(base, key, headers).messages.stream({
        model: MODEL,
        max_tokens: 6,
        messages: user("stream it"),
      });
      const message = await stream.finalMessage();
      expect(message.content).toEqual([{ type: "text", text: completionText(6) }]);
      expect(message.usage).toMatchObject({ input_tokens: 2, output_tokens: 6 });
    },
  },
  {
    name: "anthropic 1.x messages stream (llama.cpp's shape: the cached prompt apart)",
    library: "anthropic1",
    billing: exact(),
    async run({ base, key, headers }) {
      const message = await anthropic1(base, key, headers)
        .messages.stream({
          model: LLAMA_CPP_MODEL,
          max_tokens: 7,
          messages: user("five words of cached prompt"),
        })
        .finalMessage();
      expect(message.content).toEqual([{ type: "text", text: completionText(7) }]);
      // The prompt is input_tokens + cache_read_input_tokens, and is billed whole.
      expect(message.usage).toMatchObject({ input_tokens: 3, cache_read_input_tokens: 2, output_tokens: 7 });
    },
  },
  {
    name: "anthropic 1.x count tokens",
    library: "anthropic1",
    billing: exact("free"),
    async run({ base, key, headers }) {
      const count = await anthropic1(base, key, headers).messages.countTokens({
        model: MODEL,
        messages: user("three more words"),
      });
      expect(count.input_tokens).toBe(3);
    },
  },
  {
    name: "anthropic 1.x messages reporting MAX_SAFE_INTEGER tokens",
    library: "anthropic1",
    // Anthropic's shape has no total: the prompt is judged first, against billing.maxPromptTokens.
    billing: { kind: "rejected", reason: "prompt_above_limit" },
    async run({ base, key, headers }) {
      const message = await anthropic1(base, key, headers).messages.create({
        model: MODEL,
        max_tokens: 5,
        messages: user(`say ${HOSTILE.overflow}`),
      });
      expect(message.usage.input_tokens).toBe(Number.MAX_SAFE_INTEGER);
    },
  },
  {
    name: "anthropic 1.x messages stream the client aborts",
    library: "anthropic1",
    billing: { kind: "client_aborted", status: 200 },
    async run({ base, key, headers }) {
      const controller = new AbortController();
      const stream = await anthropic1(base, key, headers).messages.create(
        { model: MODEL, max_tokens: 10, messages: user(`then ${HOSTILE.hold}`), stream: true },
        { signal: controller.signal },
      );
      const types: string[] = [];
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "content_block_delta") controller.abort();
      }
      // Anthropic's stream, like openai's, ends quietly when its own signal aborts it, in the middle.
      expect(controller.signal.aborted).toBe(true);
      expect(types.slice(0, 3)).toEqual(["message_start", "content_block_start", "content_block_delta"]);
      expect(types).not.toContain("message_delta");
    },
  },
  {
    name: "anthropic 1.x messages the upstream drops unanswered",
    library: "anthropic1",
    billing: { kind: "upstream_unavailable" },
    async run({ base, key, headers }) {
      const error = await failure(
        anthropic1(base, key, headers).messages.create({
          model: MODEL,
          max_tokens: 5,
          messages: user(`then ${HOSTILE.drop}`),
        }),
      );
      expect(error).toBeInstanceOf(Anthropic.InternalServerError);
      expect(error).toMatchObject({
        status: 502,
        type: "api_error",
        error: { type: "error", error: { type: "api_error", code: "upstream_unavailable" } },
      });
    },
  },
  {
    name: "anthropic 1.x wrong key",
    library: "anthropic1",
    billing: { kind: "refused", status: 401, code: "invalid_api_key" },
    async run({ base, headers }) {
      const error = await failure(
        anthropic1(base, WRONG_KEY, headers).messages.create({
          model: MODEL,
          max_tokens: 5,
          messages: user("hi"),
        }),
      );
      expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
      expect(error).toMatchObject({ status: 401, type: "authentication_error" });
    },
  },
];
