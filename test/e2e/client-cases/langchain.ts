// LangChain (@langchain/openai 0.6, @langchain/anthropic 0.3, which brings its own @anthropic-ai/sdk 0.x and
// so sends the key as x-api-key): ChatOpenAI.invoke and .stream (which asks for the usage itself), a stream
// whose report goes beyond the reservation, ChatAnthropic.invoke, OpenAIEmbeddings.

import { ChatAnthropic } from "@langchain/anthropic";
import type { AIMessageChunk } from "@langchain/core/messages";
import { ChatOpenAI, OpenAIEmbeddings } from "@langchain/openai";
import { expect } from "vitest";
import { completionText, HOSTILE, OVERAGE_PROMPT_TOKENS } from "../../helpers/model-server.js";
import { type Case, EMBEDDINGS_MODEL, exact, LLAMA_CPP_MODEL, MODEL, VECTOR } from "./case.js";

export const LANGCHAIN_CASES: Case[] = [
  {
    name: "langchain ChatOpenAI.invoke",
    library: "langchain",
    billing: exact(),
    async run({ base, key, headers }) {
      const chat = new ChatOpenAI({
        model: MODEL,
        apiKey: key,
        configuration: { baseURL: `${base}/v1`, defaultHeaders: headers },
        maxRetries: 0,
        maxTokens: 5,
      });
      const message = await chat.invoke("say three words");
      expect(message.content).toBe(completionText(5));
      expect(message.usage_metadata).toMatchObject({ input_tokens: 3, output_tokens: 5, total_tokens: 8 });
    },
  },
  {
    name: "langchain ChatOpenAI.stream",
    library: "langchain",
    billing: exact(),
    async run({ base, key, headers }) {
      const chat = new ChatOpenAI({
        model: MODEL,
        apiKey: key,
        configuration: { baseURL: `${base}/v1`, defaultHeaders: headers },
        maxRetries: 0,
        maxTokens: 5,
      });
      let whole: AIMessageChunk | undefined;
      for await (const chunk of await chat.stream("stream four words please")) {
        whole = whole === undefined ? chunk : whole.concat(chunk);
      }
      expect(whole?.content).toBe(completionText(5));
      // LangChain asks for the usage itself, and gets it.
      expect(whole?.usage_metadata).toMatchObject({ input_tokens: 4, output_tokens: 5 });
    },
    received: (answer) => expect(answer.includeUsage).toBe(true),
  },
  {
    name: "langchain ChatOpenAI.stream reporting more than was reserved",
    library: "langchain",
    billing: { kind: "overage", endpointClass: "generation" },
    async run({ base, key, headers }) {
      const chat = new ChatOpenAI({
        model: MODEL,
        apiKey: key,
        configuration: { baseURL: `${base}/v1`, defaultHeaders: headers },
        maxRetries: 0,
        maxTokens: 2,
      });
      let whole: AIMessageChunk | undefined;
      for await (const chunk of await chat.stream(`a ${HOSTILE.overage} stream`)) {
        whole = whole === undefined ? chunk : whole.concat(chunk);
      }
      expect(whole?.usage_metadata).toMatchObject({ input_tokens: OVERAGE_PROMPT_TOKENS, output_tokens: 2 });
    },
  },
  {
    name: "langchain ChatAnthropic.invoke",
    library: "langchain",
    billing: exact(),
    async run({ base, key, headers }) {
      const chat = new ChatAnthropic({
        model: MODEL,
        apiKey: key,
        anthropicApiUrl: base,
        clientOptions: { defaultHeaders: headers },
        maxRetries: 0,
        maxTokens: 6,
      });
      const message = await chat.invoke("hi there");
      expect(message.content).toBe(completionText(6));
      expect(message.usage_metadata).toMatchObject({ input_tokens: 2, output_tokens: 6 });
    },
  },
  {
    name: "langchain ChatAnthropic.invoke (llama.cpp's shape)",
    library: "langchain",
    billing: exact(),
    async run({ base, key, headers }) {
      const chat = new ChatAnthropic({
        model: LLAMA_CPP_MODEL,
        apiKey: key,
        anthropicApiUrl: base,
        clientOptions: { defaultHeaders: headers },
        maxRetries: 0,
        maxTokens: 4,
      });
      const message = await chat.invoke("six words with a cached part");
      expect(message.content).toBe(completionText(4));
      // LangChain shows the cached part apart; the gateway bills the whole prompt, 6 tokens.
      expect(message.usage_metadata).toMatchObject({
        input_tokens: 3,
        output_tokens: 4,
        input_token_details: { cache_read: 3 },
      });
    },
  },
  {
    name: "langchain OpenAIEmbeddings",
    library: "langchain",
    billing: exact("input-only"),
    async run({ base, key, headers }) {
      const embeddings = new OpenAIEmbeddings({
        model: EMBEDDINGS_MODEL,
        apiKey: key,
        configuration: { baseURL: `${base}/v1`, defaultHeaders: headers },
        maxRetries: 0,
      });
      const vectors = await embeddings.embedDocuments(["one two", "three four five"]);
      expect(vectors).toHaveLength(2);
      expect(vectors[1]).toEqual([VECTOR[0]! * 2, ...VECTOR.slice(1)]);
    },
  },
];
