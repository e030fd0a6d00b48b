// A small stand-in for a model server, speaking the OpenAI chat and text completions API (JSON and
// streaming, with usage) and listing its models. It is what `npm run demo` and `npm run bench` put behind
// the gateway, and what the tests build their stub upstreams on. It generates deterministic filler text:
// one word per token, so usage is easy to check.

import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathOf } from "../http/url-path.js";

export const DEMO_MODELS = ["demo-small", "demo-large"];
const WORDS = ["the", "gateway", "meters", "every", "token", "and", "bills", "it", "in", "rubles"];

export interface DemoOptions {
  /** Completion tokens produced when a request sets no max_tokens. */
  defaultCompletionTokens?: number;
  /** Pause between streamed tokens (ms); 0 streams as fast as possible. */
  tokenIntervalMs?: number;
}

export interface CompletionRequest {
  model?: unknown;
  messages?: unknown;
  prompt?: unknown;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown };
}

/** Prompt tokens the demo reports: one per word of the prompt or the messages' text. */
export function demoPromptTokens(request: CompletionRequest): number {
  const text =
    typeof request.prompt === "string"
      ? request.prompt
      : Array.isArray(request.messages)
        ? request.messages.map((m) => (typeof m?.content === "string" ? m.content : "")).join(" ")
        : "";
  return Math.max(1, text.split(/\s+/).filter(Boolean).length);
}

/** Completion tokens the demo produces for a request. */
export function demoCompletionTokens(request: CompletionRequest, options: DemoOptions = {}): number {
  const cap = Number(request.max_completion_tokens ?? request.max_tokens);
  const wanted = options.defaultCompletionTokens ?? 12;
  return Number.isInteger(cap) && cap > 0 ? Math.min(cap, wanted) : wanted;
}

/** Answers a request the way the demo model server does; `body` is the request body already read. */
export async function answerDemoRequest(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  options: DemoOptions = {},
): Promise<void> {
  const path = pathOf(req.url);
  if (req.method === "GET" && path === "/v1/models") {
    json(res, 200, {
      object: "list",
      data: DEMO_MODELS.map((id) => ({ id, object: "model", created: 1_760_000_000, owned_by: "demo" })),
    });
    return;
  }
  const chat = path === "/v1/chat/completions";
  if (req.method !== "POST" || (!chat && path !== "/v1/completions")) {
    json(res, 404, {
      error: { message: `no route ${req.method} ${path}`, type: "invalid_request_error", code: null },
    });
    return;
  }
  let request: CompletionRequest;
  try {
    request = JSON.parse(body.toString("utf8"));
  } catch {
    json(res, 400, { error: { message: "body is not JSON", type: "invalid_request_error", code: null } });
    return;
  }
  const model = typeof request.model === "string" ? request.model : (DEMO_MODELS[0] as string);
  const prompt = demoPromptTokens(request);
  const completion = demoCompletionTokens(request, options);
  const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  const id = `demo-${Date.now().toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  const words = Array.from({ length: completion }, (_, i) => WORDS[i % WORDS.length] as string);

  if (request.stream !== true) {
    const text = words.join(" ");
    json(res, 200, {
      id,
      object: chat ? "chat.completion" : "text_completion",
      created,
      model,
      choices: [
        chat
          ? { index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }
          : { index: 0, text, finish_reason: "stop" },
      ],
      usage,
    });
    return;
  }

  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const object = chat ? "chat.completion.chunk" : "text_completion";
  const chunk = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({ id, object, created, model, choices, ...extra })}\n\n`;
  const interval = options.tokenIntervalMs ?? 0;
  for (let i = 0; i < words.length; i++) {
    if (res.destroyed) return;
    const text = i === 0 ? words[i] : ` ${words[i]}`;
    res.write(
      chunk([
        chat
          ? { index: 0, delta: { content: text }, finish_reason: null }
          : { index: 0, text, finish_reason: null },
      ]),
    );
    if (interval > 0) await new Promise((resolve) => setTimeout(resolve, interval));
  }
  res.write(
    chunk([
      chat ? { index: 0, delta: {}, finish_reason: "stop" } : { index: 0, text: "", finish_reason: "stop" },
    ]),
  );
  if (request.stream_options?.include_usage === true) res.write(chunk([], { usage }));
  res.end("data: [DONE]\n\n");
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export function readRequestBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export interface DemoUpstream {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startDemoUpstream(
  port = 0,
  host = "127.0.0.1",
  options: DemoOptions = {},
): Promise<DemoUpstream> {
  const server = createServer((req, res) => {
    readRequestBody(req)
      .then((body) => answerDemoRequest(req, res, body, options))
      .catch(() => res.destroy());
  });
  server.listen(port, host);
  await once(server, "listening");
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    server,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
