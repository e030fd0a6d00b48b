// The bodies of the stub model server (model-server.ts), each built on a fixture of
// test/fixtures/upstreams, parsed and refilled, so that field names and their order stay those of the server
// that sends them: vLLM's for chat and text completions, embeddings, Anthropic messages, token counting and
// the model list; Ollama's for the Responses API (vLLM's is not reproduced in the fixtures); Ollama's or
// llama.cpp's for the embeddings and messages of the models in SHAPES.

import { randomBytes } from "node:crypto";
import { fixtureNamed } from "../fixtures/upstreams/index.js";

/** Completion tokens a generation produces when its cap allows. */
export const COMPLETION_TOKENS = 12;

/** A server whose shapes the stub answers in. */
export type Shape = "vllm" | "ollama" | "llama.cpp";

/**
 * Models answered in the shapes of another server than vLLM: their embeddings and messages as Ollama's
 * OpenAI and Anthropic layers answer them, their messages as llama.cpp's Anthropic layer does.
 */
export const SHAPES: Readonly<Record<string, Shape>> = {
  embeddinggemma: "ollama",
  "llama3.2": "ollama",
  "Llama-3.2-3B-Instruct-Q4_K_M": "llama.cpp",
};

/** The models the server lists (the test's own names are answered as any other). */
export const MODELS = ["demo-small", "embed-small", ...Object.keys(SHAPES)];

function serverOf(model: unknown): Shape {
  return (typeof model === "string" && SHAPES[model]) || "vllm";
}

// --- Generations ---------------------------------------------------------------------------------------

const WORDS = ["the", "gateway", "meters", "every", "token", "and", "bills", "it", "in", "rubles"];

/** The text of a generation of `tokens` tokens, as the server writes it: one word per token. */
export function completionText(tokens: number): string {
  return Array.from({ length: tokens }, (_, i) => WORDS[i % WORDS.length]).join(" ");
}

export interface Reply {
  request: Record<string, any>;
  /** Choices asked for (n); each has `words`. */
  choices: number;
  model: string;
  words: string[];
  /** The answer ended because it reached its cap. */
  stopped: boolean;
  maxOutputTokens: number | null;
  usage: { promptTokens: number; completionTokens: number };
}

export interface Generation {
  /** The output cap the body sets in the field this API reads, or null. */
  cap(body: Record<string, any>): number | null;
  json(reply: Reply): string;
  jsonType: string;
  /** The stream's events, each as the server writes it (one write each). */
  stream(reply: Reply, includeUsage: boolean): string[];
  streamType: string;
}

const capOf =
  (...fields: string[]) =>
  (body: Record<string, any>): number | null => {
    for (const field of fields) if (typeof body[field] === "number") return body[field];
    return null;
  };

/** How the server answers a generation endpoint, for the model asked for; undefined for no such endpoint. */
export function generationFor(path: string, model: unknown): Generation | undefined {
  return path === "/v1/messages" ? MESSAGES[serverOf(model)] : GENERATIONS[path];
}

const GENERATIONS: Record<string, Generation> = {
  "/v1/chat/completions": {
    cap: capOf("max_completion_tokens", "max_tokens"),
    json: chatJson,
    jsonType: contentTypeOf("vllm", "chat"),
    stream: chatStream,
    streamType: contentTypeOf("vllm", "chat-stream"),
  },
  "/v1/completions": {
    cap: capOf("max_tokens"),
    json: completionJson,
    jsonType: contentTypeOf("vllm", "completions"),
    stream: completionStream,
    streamType: contentTypeOf("vllm", "completions-stream"),
  },
  "/v1/responses": {
    cap: capOf("max_output_tokens"),
    json: responseJson,
    jsonType: contentTypeOf("ollama", "responses"),
    stream: responseStream,
    streamType: contentTypeOf("ollama", "responses-stream"),
  },
};

const openAiUsage = (u: Reply["usage"]) => ({
  prompt_tokens: u.promptTokens,
  total_tokens: u.promptTokens + u.completionTokens,
  completion_tokens: u.completionTokens,
});

function chatJson(reply: Reply): string {
  const body = template("vllm", "chat");
  Object.assign(body, { id: chatId(), created: now(), model: reply.model });
  const [choice] = body.choices;
  choice.message.content = reply.words.join(" ");
  choice.finish_reason = reply.stopped ? "length" : "stop";
  body.choices = Array.from({ length: reply.choices }, (_, index) => ({ ...structuredClone(choice), index }));
  body.usage = { ...openAiUsage(reply.usage), prompt_tokens_details: null };
  return JSON.stringify(body);
}

function chatStream(reply: Reply, includeUsage: boolean): string[] {
  const id = chatId();
  const created = now();
  const chunk = (index: number, fill: (c: any) => void) => {
    const c = template("vllm", "chat-stream-include-usage", index);
    Object.assign(c, { id, created, model: reply.model });
    fill(c);
    return data(c);
  };
  // As vLLM streams n choices: each event carries one choice, told apart by its index.
  const indices = Array.from({ length: reply.choices }, (_, index) => index);
  const events = indices.map((index) => chunk(0, (c) => (c.choices[0].index = index)));
  reply.words.forEach((word, i) => {
    for (const index of indices) {
      events.push(
        chunk(1, (c) =>
          Object.assign(c.choices[0], { index, delta: { content: i === 0 ? word : ` ${word}` } }),
        ),
      );
    }
  });
  for (const index of indices) {
    events.push(
      chunk(8, (c) =>
        Object.assign(c.choices[0], { index, finish_reason: reply.stopped ? "length" : "stop" }),
      ),
    );
  }
  if (includeUsage) events.push(chunk(9, (c) => (c.usage = openAiUsage(reply.usage))));
  events.push("data: [DONE]\n\n");
  return events;
}

function completionJson(reply: Reply): string {
  const body = template("vllm", "completions");
  Object.assign(body, { id: completionId(), created: now(), model: reply.model });
  body.choices[0].text = reply.words.join(" ");
  body.choices[0].finish_reason = reply.stopped ? "length" : "stop";
  body.usage = { ...openAiUsage(reply.usage), prompt_tokens_details: null };
  return JSON.stringify(body);
}

function completionStream(reply: Reply, includeUsage: boolean): string[] {
  const id = completionId();
  const created = now();
  const events = reply.words.map((word, i) => {
    const c = template("vllm", "completions-stream-include-usage", 0);
    Object.assign(c, { id, created, model: reply.model });
    c.choices[0].text = i === 0 ? word : ` ${word}`;
    if (i === reply.words.length - 1) c.choices[0].finish_reason = reply.stopped ? "length" : "stop";
    return data(c);
  });
  if (includeUsage) {
    const c = template("vllm", "completions-stream-include-usage", 5);
    Object.assign(c, { id, created, model: reply.model, usage: openAiUsage(reply.usage) });
    events.push(data(c));
  }
  events.push("data: [DONE]\n\n");
  return events;
}

const responsesUsage = (u: Reply["usage"]) => ({
  input_tokens: u.promptTokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: u.completionTokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: u.promptTokens + u.completionTokens,
});

function responseJson(reply: Reply): string {
  const body = template("ollama", "responses");
  const created = now();
  Object.assign(body, {
    id: `resp_${serial()}`,
    created_at: created,
    completed_at: created,
    model: reply.model,
    max_output_tokens: reply.maxOutputTokens,
  });
  body.output[0].id = `msg_${serial()}`;
  body.output[0].content[0].text = reply.words.join(" ");
  // Ollama's non-stream Response struct keeps its own field order for the usage.
  const u = reply.usage;
  body.usage = {
    input_tokens: u.promptTokens,
    output_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
  return `${JSON.stringify(body)}\n`;
}

function responseStream(reply: Reply): string[] {
  const responseId = `resp_${serial()}`;
  const itemId = `msg_${serial()}`;
  const created = now();
  const text = reply.words.join(" ");
  let sequence = 0;
  const event = (index: number, fill: (e: any) => void) => {
    const e = template("ollama", "responses-stream", index);
    if (e.response) {
      Object.assign(e.response, {
        id: responseId,
        created_at: created,
        model: reply.model,
        max_output_tokens: reply.maxOutputTokens,
      });
    }
    if (e.item_id) e.item_id = itemId;
    if (e.item) e.item.id = itemId;
    e.sequence_number = sequence++;
    fill(e);
    return `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
  };
  const events = [event(0, () => {}), event(1, () => {}), event(2, () => {}), event(3, () => {})];
  reply.words.forEach((word, i) => {
    events.push(event(4, (e) => (e.delta = i === 0 ? word : ` ${word}`)));
  });
  events.push(event(11, (e) => (e.text = text)));
  events.push(event(12, (e) => (e.part.text = text)));
  events.push(event(13, (e) => (e.item.content[0].text = text)));
  events.push(
    event(14, (e) => {
      e.response.completed_at = created;
      e.response.output[0].id = itemId;
      e.response.output[0].content[0].text = text;
      e.response.usage = responsesUsage(reply.usage);
    }),
  );
  return events;
}

/** The Anthropic Messages API as each server shapes it, by the model's server (SHAPES). */
const MESSAGES: Record<Shape, Generation> = {
  vllm: {
    cap: capOf("max_tokens"),
    json: (reply) =>
      messageJson("vllm", reply, (u) => ({
        input_tokens: u.promptTokens,
        output_tokens: u.completionTokens,
      })),
    jsonType: contentTypeOf("vllm", "messages"),
    stream: vllmMessageStream,
    streamType: contentTypeOf("vllm", "messages-stream"),
  },
  // Ollama's message_start carries an estimate of the prompt; the real counts come with message_delta.
  ollama: {
    cap: capOf("max_tokens"),
    json: (reply) =>
      `${messageJson("ollama", reply, (u) => ({ input_tokens: u.promptTokens, output_tokens: u.completionTokens }))}\n`,
    jsonType: contentTypeOf("ollama", "messages"),
    stream: ollamaMessageStream,
    streamType: contentTypeOf("ollama", "messages-stream"),
  },
  // llama.cpp counts the cached part of the prompt apart, and its message_delta has only the output tokens.
  "llama.cpp": {
    cap: capOf("max_tokens"),
    json: (reply) => messageJson("llama.cpp", reply, llamaCppUsage),
    jsonType: contentTypeOf("llama.cpp", "messages"),
    stream: llamaCppMessageStream,
    streamType: contentTypeOf("llama.cpp", "messages-stream"),
  },
};

/** The cached half of the prompt as cache_read_input_tokens, the rest as input_tokens. */
function llamaCppUsage(u: Reply["usage"]) {
  const cached = Math.floor(u.promptTokens / 2);
  return {
    cache_read_input_tokens: cached,
    input_tokens: u.promptTokens - cached,
    output_tokens: u.completionTokens,
  };
}

function messageJson(server: Shape, reply: Reply, usage: (u: Reply["usage"]) => object): string {
  const body = template(server, "messages");
  Object.assign(body, { id: server === "ollama" ? messageId() : chatId(), model: reply.model });
  body.content[0].text = reply.words.join(" ");
  body.stop_reason = reply.stopped ? "max_tokens" : "end_turn";
  body.usage = usage(reply.usage);
  return JSON.stringify(body);
}

/**
 * The events of a message stream from the server's fixture: message_start, content_block_start, one text
 * delta per word, content_block_stop, message_delta, message_stop, each refilled by `fill`.
 */
function messageEvents(server: Shape, reply: Reply, fill: (e: any) => void): string[] {
  const templates = eventsOf(server, "messages-stream");
  const named = (type: string) => structuredClone(templates.find((e) => e.type === type));
  const event = (e: any) => {
    fill(e);
    return `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
  };
  const events = [event(named("message_start")), event(named("content_block_start"))];
  reply.words.forEach((word, i) => {
    const delta = named("content_block_delta");
    delta.delta.text = i === 0 ? word : ` ${word}`;
    events.push(event(delta));
  });
  const end = named("message_delta");
  end.delta.stop_reason = reply.stopped ? "max_tokens" : "end_turn";
  events.push(event(named("content_block_stop")), event(end), event(named("message_stop")));
  return events;
}

function vllmMessageStream(reply: Reply): string[] {
  const id = chatId();
  const events = messageEvents("vllm", reply, (e) => {
    if (e.type === "message_start") {
      Object.assign(e.message, { id, model: reply.model });
      e.message.usage = { input_tokens: reply.usage.promptTokens, output_tokens: 0 };
    }
    if (e.type === "message_delta") {
      e.usage = { input_tokens: reply.usage.promptTokens, output_tokens: reply.usage.completionTokens };
    }
  });
  // vLLM ends its Anthropic stream with the OpenAI terminator as well.
  return [...events, "data: [DONE]\n\n"];
}

function ollamaMessageStream(reply: Reply): string[] {
  const id = messageId();
  return messageEvents("ollama", reply, (e) => {
    if (e.type === "message_start") {
      Object.assign(e.message, { id, model: reply.model });
      e.message.usage = { input_tokens: ollamaEstimate(reply.request), output_tokens: 0 };
    }
    if (e.type === "message_delta") {
      e.usage = { input_tokens: reply.usage.promptTokens, output_tokens: reply.usage.completionTokens };
    }
  });
}

/** Ollama's EstimateInputTokens: the characters of each message's role and text, over 4. */
function ollamaEstimate(request: Record<string, any>): number {
  let chars = typeof request.system === "string" ? request.system.length : 0;
  for (const message of request.messages ?? []) {
    chars += String(message.role).length;
    chars +=
      typeof message.content === "string" ? message.content.length : JSON.stringify(message.content).length;
  }
  return Math.floor(chars / 4);
}

function llamaCppMessageStream(reply: Reply): string[] {
  const id = chatId();
  return messageEvents("llama.cpp", reply, (e) => {
    if (e.type === "message_start") {
      Object.assign(e.message, { id, model: reply.model });
      e.message.usage = { ...llamaCppUsage(reply.usage), output_tokens: 0 };
    }
    if (e.type === "message_delta") e.usage = { output_tokens: reply.usage.completionTokens };
  });
}

// --- Other endpoints -----------------------------------------------------------------------------------

/** A body and its content type. */
export interface Body {
  contentType: string;
  text: string;
}

export function countTokens(prompt: number): Body {
  const body = template("vllm", "count-tokens");
  body.input_tokens = prompt;
  body.context_management.original_input_tokens = prompt;
  return { contentType: contentTypeOf("vllm", "count-tokens"), text: JSON.stringify(body) };
}

/** One small vector per input; base64 of little-endian float32 when asked, as vLLM and OpenAI encode it. */
export function embeddings(body: Record<string, any>, promptTokens: number): Body {
  const inputs: unknown[] = Array.isArray(body.input) ? body.input : [body.input];
  const vectors = inputs.map((_, i) => [0.015625 * (i + 1), -0.03125, 0.0078125, -0.046875]);
  const encode = (vector: number[]) =>
    body.encoding_format === "base64"
      ? Buffer.from(new Float32Array(vector).buffer).toString("base64")
      : vector;
  if (serverOf(body.model) === "ollama") {
    const reply = template("ollama", "embeddings");
    reply.model = body.model;
    reply.data = vectors.map((vector, index) => ({ object: "embedding", embedding: encode(vector), index }));
    reply.usage = { prompt_tokens: promptTokens, total_tokens: promptTokens };
    return { contentType: contentTypeOf("ollama", "embeddings"), text: `${JSON.stringify(reply)}\n` };
  }
  const reply = template("vllm", "embeddings");
  Object.assign(reply, { id: `embd-${randomBytes(16).toString("hex")}`, created: now(), model: body.model });
  reply.data = vectors.map((vector, index) => ({ index, object: "embedding", embedding: encode(vector) }));
  reply.usage = {
    prompt_tokens: promptTokens,
    total_tokens: promptTokens,
    completion_tokens: 0,
    prompt_tokens_details: null,
  };
  return { contentType: contentTypeOf("vllm", "embeddings"), text: JSON.stringify(reply) };
}

/** vLLM's model list (ModelCard with its permission record), for the models the tests name. */
export function modelList(): Body {
  const created = now();
  const text = JSON.stringify({
    object: "list",
    data: MODELS.map((id) => ({
      id,
      object: "model",
      created,
      owned_by: "vllm",
      root: id,
      parent: null,
      max_model_len: 131072,
      permission: [
        {
          id: `modelperm-${randomBytes(16).toString("hex")}`,
          object: "model_permission",
          created,
          allow_create_engine: false,
          allow_sampling: true,
          allow_logprobs: true,
          allow_search_indices: false,
          allow_view: true,
          allow_fine_tuning: false,
          organization: "*",
          group: null,
          is_blocking: false,
        },
      ],
    })),
  });
  return { contentType: "application/json", text };
}

// --- Templates -----------------------------------------------------------------------------------------

/** The JSON of a fixture's chunk (a JSON body, or the data line of an SSE event), to be refilled. */
function template(server: Shape, name: string, index = 0): any {
  const chunk = fixtureNamed(server, name).response.chunks[index] as string;
  const data = /^data: (.*)$/m.exec(chunk)?.[1] ?? chunk;
  return JSON.parse(data);
}

/** Every event's data of a fixture's stream, in order (a chunk may hold several, as llama.cpp writes them). */
function eventsOf(server: Shape, name: string): any[] {
  const body = fixtureNamed(server, name).response.chunks.join("");
  return [...body.matchAll(/^data: (.*)$/gm)].flatMap(([, data]) =>
    data === "[DONE]" ? [] : [JSON.parse(data as string)],
  );
}

function contentTypeOf(server: Shape, name: string): string {
  return fixtureNamed(server, name).response.headers["content-type"] as string;
}

function data(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

const now = () => Math.floor(Date.now() / 1000);
const chatId = () => `chatcmpl-${randomBytes(16).toString("hex")}`;
const completionId = () => `cmpl-${randomBytes(16).toString("hex")}`;
const messageId = () => `msg_${randomBytes(12).toString("hex")}`;
let counter = 0;
const serial = () => 100_000 + (counter++ % 900_000);
