// The openai client (v6): chat and text completions, JSON and streams (with and without include_usage),
// embeddings (base64, which it asks for by default), the Responses API (JSON and stream), the model list (a
// request without a body), and the hostile cases: usage of Number.MAX_SAFE_INTEGER tokens, a credible report
// beyond the reservation, an upstream reset and client aborts, an invalid cap, a wrong key, management paths.

import { randomUUID } from "node:crypto";
import OpenAI from "openai";
import { expect } from "vitest";
import { completionText, HOSTILE, MODELS, OVERAGE_PROMPT_TOKENS } from "../../helpers/model-server.js";
import { type Case, EMBEDDINGS_MODEL, exact, failure, MODEL, user, VECTOR, WRONG_KEY } from "./case.js";

/** OpenAI clients take the base URL with /v1; `root` "" reaches paths outside it. */
const openai = (base: string, key: string, headers: Record<string, string>, root = "/v1") =>
  new OpenAI({ apiKey: key, baseURL: `${base}${root}`, maxRetries: 0, defaultHeaders: headers });

export const OPENAI_CASES: Case[] = [
  {
    name: "openai chat",
    library: "openai",
    billing: exact(),
    async run({ base, key, headers }) {
      const completion = await openai(base, key, headers).chat.completions.create({
        model: MODEL,
        messages: user("one two three four"),
        max_tokens: 8,
      });
      expect(completion.choices[0]?.message.content).toBe(completionText(8));
      expect(completion.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 8, total_tokens: 12 });
    },
  },
  {
    name: "openai chat stream",
    library: "openai",
    billing: exact(),
    async run({ base, key, headers }) {
      const stream = await openai(base, key, headers).chat.completions.create({
        model: MODEL,
        messages: user("a stream without usage"),
        max_completion_tokens: 5,
        stream: true,
      });
      let text = "";
      let chunks = 0;
      for await (const chunk of stream) {
        chunks++;
        // The naive loop: the usage chunk the gateway asked for must not reach a client that did not.
        text += chunk.choices[0]!.delta.content ?? "";
        expect(chunk.usage ?? null).toBeNull();
      }
      expect(text).toBe(completionText(5));
      expect(chunks).toBe(1 + 5 + 1); // the role, one per token, the finish
    },
    received: (answer) => expect(answer.includeUsage).toBe(true),
  },
  {
    name: "openai chat stream with usage",
    library: "openai",
    billing: exact(),
    async run({ base, key, headers }) {
      const stream = await openai(base, key, headers).chat.completions.create({
        model: MODEL,
        messages: user("usage please"),
        max_tokens: 4,
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      const last = chunks.at(-1);
      expect(last?.choices).toEqual([]);
      expect(last?.usage).toEqual({ prompt_tokens: 2, total_tokens: 6, completion_tokens: 4 });
      expect(chunks.slice(0, -1).every((chunk) => chunk.choices.length === 1 && !chunk.usage)).toBe(true);
    },
  },
  {
    name: "openai chat stream of two choices",
    library: "openai",
    billing: exact(),
    async run({ base, key, headers }) {
      const stream = await openai(base, key, headers).chat.completions.create({
        model: MODEL,
        messages: user("two answers please"),
        max_tokens: 3,
        n: 2,
        stream: true,
      });
      const texts = ["", ""];
      for await (const chunk of stream) {
        const choice = chunk.choices[0]!;
        texts[choice.index] += choice.delta.content ?? "";
        expect(chunk.usage ?? null).toBeNull();
      }
      expect(texts).toEqual([completionText(3), completionText(3)]);
    },
    received: (answer) => expect(answer.usage).toEqual({ promptTokens: 3, completionTokens: 6 }),
  },
  {
    name: "openai completions",
    library: "openai",
    billing: exact(),
    async run({ base, key, headers }) {
      const completion = await openai(base, key, headers).completions.create({
        model: MODEL,
        prompt: "alpha beta gamma",
        max_tokens: 6,
      });
      expect(completion.choices[0]?.text).toBe(completionText(6));
      expect(completion.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 6 });
    },
  },
  {
    name: "openai completions stream",
    library: "openai",
    billing: exact(),
    async run({ base, key, headers }) {
      const stream = await openai(base, key, headers).completions.create({
        model: MODEL,
        prompt: "stream some text",
        max_tokens: 4,
        stream: true,
      });
      let text = "";
      for await (const chunk of stream) {
        text += chunk.choices[0]!.text;
        expect(chunk.usage ?? null).toBeNull();
      }
      expect(text).toBe(completionText(4));
    },
    received: (answer) => expect(answer.includeUsage).toBe(true),
  },
  {
    name: "openai embeddings",
    library: "openai",
    billing: exact("input-only"),
    async run({ base, key, headers }) {
      const result = await openai(base, key, headers).embeddings.create({
        model: EMBEDDINGS_MODEL,
        input: ["a b c", "d e"],
      });
      // The client asked for base64 and decoded it.
      expect(result.data.map((item) => item.embedding)).toEqual([
        [VECTOR[0]! * 1, ...VECTOR.slice(1)],
        [VECTOR[0]! * 2, ...VECTOR.slice(1)],
      ]);
      expect(result.usage).toMatchObject({ prompt_tokens: 5, total_tokens: 5 });
    },
    received: (answer) => expect(answer.body?.encoding_format).toBe("base64"),
  },
  {
    name: "openai responses",
    library: "openai",
    billing: exact(),
    async run({ base, key, headers }) {
      const response = await openai(base, key, headers).responses.create({
        model: MODEL,
        input: "tell me a story",
        max_output_tokens: 7,
      });
      expect(response.output_text).toBe(completionText(7));
      expect(response.usage).toMatchObject({ input_tokens: 4, output_tokens: 7, total_tokens: 11 });
    },
  },
  {
    name: "openai responses stream",
    library: "openai",
    billing: exact(),
    async run({ base, key, headers }) {
      const stream = openai(base, key, headers).responses.stream({
        model: MODEL,
        input: "stream me a story please",
        max_output_tokens: 3,
      });
      let deltas = "";
      for await (const event of stream)
        if (event.type === "response.output_text.delta") deltas += event.delta;
      const response = await stream.finalResponse();
      expect(deltas).toBe(completionText(3));
      expect(response.output_text).toBe(completionText(3));
      expect(response.usage).toMatchObject({ input_tokens: 5, output_tokens: 3 });
    },
  },
  {
    name: "openai models (no body)",
    library: "openai",
    billing: exact("free"),
    async run({ base, key, headers }) {
      const page = await openai(base, key, headers).models.list();
      expect(page.data.map((model) => model.id)).toEqual(MODELS);
    },
  },
  {
    name: "openai chat reporting MAX_SAFE_INTEGER tokens",
    library: "openai",
    // Their total, 2 × MAX_SAFE_INTEGER, is no safe integer.
    billing: { kind: "rejected", reason: "not_a_count" },
    async run({ base, key, headers }) {
      const completion = await openai(base, key, headers).chat.completions.create({
        model: MODEL,
        messages: user(`count to ${HOSTILE.overflow}`),
        max_tokens: 5,
      });
      // The gateway passes the answer on as it is; it only declines to bill it.
      expect(completion.usage?.prompt_tokens).toBe(Number.MAX_SAFE_INTEGER);
      expect(completion.choices[0]?.message.content).toBe(completionText(5));
    },
  },
  {
    name: "openai chat stream reporting MAX_SAFE_INTEGER tokens",
    library: "openai",
    billing: { kind: "rejected", reason: "not_a_count" },
    async run({ base, key, headers }) {
      const stream = await openai(base, key, headers).chat.completions.create({
        model: MODEL,
        messages: user(`stream to ${HOSTILE.overflow}`),
        max_tokens: 6,
        stream: true,
      });
      let text = "";
      for await (const chunk of stream) {
        text += chunk.choices[0]!.delta.content ?? "";
        expect(chunk.usage ?? null).toBeNull();
      }
      expect(text).toBe(completionText(6));
    },
  },
  {
    name: "openai chat stream the upstream resets",
    library: "openai",
    billing: { kind: "upstream_reset" },
    async run({ base, key, headers }) {
      const stream = await openai(base, key, headers).chat.completions.create({
        model: MODEL,
        messages: user(`then ${HOSTILE.reset}`),
        max_tokens: 10,
        stream: true,
      });
      let text = "";
      const error = await failure(
        (async () => {
          for await (const chunk of stream) text += chunk.choices[0]!.delta.content ?? "";
        })(),
      );
      // The client sees the connection end before the stream did: fetch's own error, unwrapped.
      expect(error).toBeInstanceOf(TypeError);
      expect(error).toMatchObject({ message: "terminated", cause: { code: "UND_ERR_SOCKET" } });
      expect(text.length).toBeLessThan(completionText(10).length);
    },
  },
  {
    name: "openai chat the upstream resets mid-body",
    library: "openai",
    billing: { kind: "upstream_reset" },
    async run({ base, key, headers }) {
      const error = await failure(
        openai(base, key, headers).chat.completions.create({
          model: MODEL,
          messages: user(`then ${HOSTILE.reset}`),
          max_tokens: 10,
        }),
      );
      expect(error).toBeInstanceOf(TypeError);
      expect(error).toMatchObject({ message: "terminated", cause: { code: "UND_ERR_SOCKET" } });
    },
  },
  {
    name: "openai chat the upstream drops unanswered",
    library: "openai",
    billing: { kind: "upstream_unavailable" },
    async run({ base, key, headers }) {
      const error = await failure(
        openai(base, key, headers).chat.completions.create({
          model: MODEL,
          messages: user(`then ${HOSTILE.drop}`),
          max_tokens: 10,
        }),
      );
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(error).toMatchObject({ status: 502, code: "upstream_unavailable" });
    },
  },
  {
    name: "openai embeddings reporting MAX_SAFE_INTEGER tokens",
    library: "openai",
    billing: { kind: "rejected", reason: "prompt_above_limit" },
    async run({ base, key, headers }) {
      const result = await openai(base, key, headers).embeddings.create({
        model: EMBEDDINGS_MODEL,
        input: `embed ${HOSTILE.overflow}`,
      });
      expect(result.usage.prompt_tokens).toBe(Number.MAX_SAFE_INTEGER);
    },
  },
  {
    name: "openai embeddings reporting more than was reserved",
    library: "openai",
    billing: { kind: "overage", endpointClass: "input-only" },
    async run({ base, key, headers }) {
      const result = await openai(base, key, headers).embeddings.create({
        model: EMBEDDINGS_MODEL,
        input: `embed ${HOSTILE.overage}`,
      });
      expect(result.usage.prompt_tokens).toBe(OVERAGE_PROMPT_TOKENS);
    },
  },
  {
    name: "openai chat stream the client aborts",
    library: "openai",
    billing: { kind: "client_aborted", status: 200 },
    async run({ base, key, headers }) {
      const controller = new AbortController();
      const stream = await openai(base, key, headers).chat.completions.create(
        { model: MODEL, messages: user(`then ${HOSTILE.hold}`), max_tokens: 10, stream: true },
        { signal: controller.signal },
      );
      let text = "";
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        if (text !== "") controller.abort();
      }
      // openai's stream ends quietly when its own signal aborts it, once the chunks it had read are out:
      // a part of the tokens the server sent before it waited.
      expect(controller.signal.aborted).toBe(true);
      expect(completionText(10).startsWith(text)).toBe(true);
      expect(text.split(" ").length).toBeLessThanOrEqual(3);
    },
  },
  {
    name: "openai chat the client aborts before an answer",
    library: "openai",
    billing: { kind: "client_aborted", status: 499 },
    async run({ base, key, headers, upstream }) {
      const controller = new AbortController();
      const hold = randomUUID();
      void upstream.held(hold).then(() => controller.abort());
      const error = await failure(
        openai(base, key, headers).chat.completions.create(
          { model: MODEL, messages: user(`think then ${HOSTILE.hold}`), max_tokens: 10 },
          { signal: controller.signal, headers: { "x-hold": hold } },
        ),
      );
      expect(error).toBeInstanceOf(OpenAI.APIUserAbortError);
    },
  },
  {
    name: "openai responses stream reporting MAX_SAFE_INTEGER tokens",
    library: "openai",
    billing: { kind: "rejected", reason: "not_a_count" },
    async run({ base, key, headers }) {
      const stream = openai(base, key, headers).responses.stream({
        model: MODEL,
        input: `respond ${HOSTILE.overflow}`,
        max_output_tokens: 4,
      });
      const response = await stream.finalResponse();
      expect(response.output_text).toBe(completionText(4));
      expect(response.usage?.input_tokens).toBe(Number.MAX_SAFE_INTEGER);
    },
  },
  {
    name: "openai completion reporting more than was reserved",
    library: "openai",
    billing: { kind: "overage", endpointClass: "generation" },
    async run({ base, key, headers }) {
      const completion = await openai(base, key, headers).completions.create({
        model: MODEL,
        prompt: `a ${HOSTILE.overage} template`,
        max_tokens: 3,
      });
      expect(completion.usage?.prompt_tokens).toBe(OVERAGE_PROMPT_TOKENS);
    },
  },
  {
    name: "openai invalid cap",
    library: "openai",
    billing: { kind: "refused", status: 400, code: "invalid_request" },
    async run({ base, key, headers }) {
      const error = await failure(
        openai(base, key, headers).chat.completions.create({
          model: MODEL,
          messages: user("hi"),
          max_tokens: -1,
        }),
      );
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error).toMatchObject({ status: 400, code: "invalid_request" });
      expect((error as Error).message).toMatch(/max_tokens must be a whole number from 1 to/);
    },
  },
  {
    name: "openai wrong key",
    library: "openai",
    billing: { kind: "refused", status: 401, code: "invalid_api_key" },
    async run({ base, headers }) {
      const error = await failure(openai(base, WRONG_KEY, headers).models.list());
      expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(error).toMatchObject({ status: 401, code: "invalid_api_key" });
    },
  },
  {
    name: "openai management path /sleep",
    library: "openai",
    billing: { kind: "refused", status: 403, code: "path_not_allowed" },
    async run({ base, key, headers }) {
      const error = await failure(openai(base, key, headers, "").post("/sleep", { body: { level: 1 } }));
      expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
      expect(error).toMatchObject({ status: 403, code: "path_not_allowed" });
    },
  },
  {
    name: "openai management path /v1/load_lora_adapter",
    library: "openai",
    billing: { kind: "refused", status: 403, code: "path_not_allowed" },
    async run({ base, key, headers }) {
      const error = await failure(
        openai(base, key, headers).post("/load_lora_adapter", { body: { lora_name: "x", lora_path: "/x" } }),
      );
      expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
      expect(error).toMatchObject({ status: 403, code: "path_not_allowed" });
    },
  },
];
