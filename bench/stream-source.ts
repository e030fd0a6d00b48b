// The streams scenario's model server side: a chat completion streamed as a vLLM-shaped SSE answer of
// `chunks` events, one every `intervalMs`, each carrying in its text the moment the server wrote it
// (process.hrtime, CLOCK_MONOTONIC, the same clock in every process on the machine), so that the client can
// tell how long each event took to reach it. The usage chunk and [DONE] follow the last token when the
// request asks for usage, as vLLM sends them.

import type { ServerResponse } from "node:http";

/** The model name that selects this answer in bench/upstream.ts. */
export const STREAM_MODEL = "bench-stream";

export interface StreamRequest {
  chunks: number;
  intervalMs: number;
  includeUsage: boolean;
}

/** Reads the scenario's settings off a parsed request body; null when the body is not the scenario's. */
export function streamRequestOf(body: unknown): StreamRequest | null {
  if (typeof body !== "object" || body === null) return null;
  const request = body as Record<string, unknown>;
  if (request.model !== STREAM_MODEL) return null;
  const options = request.stream_options as { include_usage?: unknown } | undefined;
  return {
    chunks: Number(request.max_tokens ?? 100),
    intervalMs: Number((request.metadata as { interval_ms?: unknown } | undefined)?.interval_ms ?? 20),
    includeUsage: options?.include_usage === true,
  };
}

const HEAD = 'data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1760000000,"model":"';
const TOKEN_START = `${HEAD}${STREAM_MODEL}","choices":[{"index":0,"delta":{"content":"t=`;
const TOKEN_END = '"},"logprobs":null,"finish_reason":null}]}\n\n';

/** The moment an event was written, as its text carries it: nanoseconds of CLOCK_MONOTONIC. */
export function writtenAt(text: string, from: number): bigint | null {
  const start = text.indexOf("t=", from);
  if (start === -1) return null;
  const end = text.indexOf('"', start);
  return BigInt(text.slice(start + 2, end));
}

export function streamAnswer(res: ServerResponse, request: StreamRequest): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed) {
      clearInterval(timer);
      return;
    }
    res.write(`${TOKEN_START}${process.hrtime.bigint()}${TOKEN_END}`);
    sent++;
    if (sent < request.chunks) return;
    clearInterval(timer);
    const finish = `${HEAD}${STREAM_MODEL}","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}\n\n`;
    const usage = request.includeUsage
      ? `${HEAD}${STREAM_MODEL}","choices":[],"usage":{"prompt_tokens":8,"total_tokens":${8 + sent},"completion_tokens":${sent}}}\n\n`
      : "";
    res.end(`${finish}${usage}data: [DONE]\n\n`);
  }, request.intervalMs);
}
