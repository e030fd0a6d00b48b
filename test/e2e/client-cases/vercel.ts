// The Vercel AI SDK (ai 6 with @ai-sdk/openai-compatible 1.x, which sends the key as a Bearer token and asks
// a stream for its usage only when the provider is created with includeUsage): generateText, streamText with
// and without the usage, embed (answered in Ollama's shape), and a stream the upstream resets.

import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, embed, generateText, streamText } from "ai";
import { expect } from "vitest";
import { completionText, HOSTILE } from "../../helpers/model-server.js";
import { type Case, exact, failure, MODEL, OLLAMA_EMBEDDINGS_MODEL, VECTOR } from "./case.js";

// The AI SDK warns on stdout that the provider speaks its previous specification; that is expected here.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const vercel = (base: string, key: string, headers: Record<string, string>, includeUsage = false) =>
  createOpenAICompatible({ name: "tunnel", baseURL: `${base}/v1`, apiKey: key, headers, includeUsage });

export const VERCEL_CASES: Case[] = [
  {
    name: "vercel generateText",
    library: "vercel",
    billing: exact(),
    async run({ base, key, headers }) {
      const result = await generateText({
        model: vercel(base, key, headers).chatModel(MODEL),
        prompt: "five words in this prompt",
        maxOutputTokens: 6,
        maxRetries: 0,
      });
      expect(result.text).toBe(completionText(6));
      expect(result.usage).toMatchObject({ inputTokens: 5, outputTokens: 6 });
    },
  },
  {
    name: "vercel streamText",
    library: "vercel",
    billing: exact(),
    async run({ base, key, headers }) {
      const result = streamText({
        model: vercel(base, key, headers).chatModel(MODEL),
        prompt: "stream without usage",
        maxOutputTokens: 3,
        maxRetries: 0,
      });
      expect(await result.text).toBe(completionText(3));
      // It did not ask for the usage, so it gets none: the gateway took out what it had asked for itself.
      expect((await result.usage).inputTokens).toBeUndefined();
    },
    received: (answer) => expect(answer.includeUsage).toBe(true),
  },
  {
    name: "vercel streamText with includeUsage",
    library: "vercel",
    billing: exact(),
    async run({ base, key, headers }) {
      const result = streamText({
        model: vercel(base, key, headers, true).chatModel(MODEL),
        prompt: "stream with usage",
        maxOutputTokens: 3,
        maxRetries: 0,
      });
      expect(await result.text).toBe(completionText(3));
      expect(await result.usage).toMatchObject({ inputTokens: 3, outputTokens: 3 });
    },
  },
  {
    name: "vercel streamText the upstream resets",
    library: "vercel",
    billing: { kind: "upstream_reset" },
    async run({ base, key, headers }) {
      const result = streamText({
        model: vercel(base, key, headers).chatModel(MODEL),
        prompt: `stream then ${HOSTILE.reset}`,
        maxOutputTokens: 10,
        maxRetries: 0,
        onError: () => {},
      });
      const error = await failure(result.text);
      expect(APICallError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        message: "Failed to process successful response",
        cause: { message: "terminated" },
      });
    },
  },
  {
    name: "vercel embed (Ollama's shape)",
    library: "vercel",
    billing: exact("input-only"),
    async run({ base, key, headers }) {
      const result = await embed({
        model: vercel(base, key, headers).textEmbeddingModel(OLLAMA_EMBEDDINGS_MODEL),
        value: "embed these words",
        maxRetries: 0,
      });
      expect(result.embedding).toEqual(VECTOR);
      expect(result.usage).toEqual({ tokens: 3 });
    },
  },
];
