// A stub model server that answers every endpoint the official client libraries call, in the shapes the
// real servers send (model-server-bodies.ts builds them on the fixtures of test/fixtures/upstreams).
//
// Its usage is computed from the request, so a test knows what each request must be billed: prompt tokens
// are the words of the request's text (at least one), completion tokens min(the output cap it was given,
// COMPLETION_TOKENS). It honours `stream`, `stream_options.include_usage` and each API's cap field. A word of
// HOSTILE in the prompt makes it misbehave. Every answer is recorded under the gateway's X-Request-Id.

import { once } from "node:events";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { readRequestBody } from "../../src/demo/demo-upstream.js";
import {
  type Body,
  COMPLETION_TOKENS,
  completionText,
  countTokens,
  embeddings,
  generationFor,
  modelList,
  type Reply,
} from "./model-server-bodies.js";

export { COMPLETION_TOKENS, completionText, MODELS, SHAPES } from "./model-server-bodies.js";

/** Prompt tokens the server reports for a request that says HOSTILE.overage. */
export const OVERAGE_PROMPT_TOKENS = 100_000;

/** Words that, anywhere in a request's text, make the server misbehave. */
export const HOSTILE = {
  /** Report Number.MAX_SAFE_INTEGER prompt and completion tokens. */
  overflow: "OVERFLOW",
  /** Report a credible prompt (OVERAGE_PROMPT_TOKENS) far beyond the request's text, so beyond its reservation. */
  overage: "VERBOSE",
  /** Send the headers and a few tokens, then cut the connection. */
  reset: "RESET",
  /** Cut the connection without answering at all. */
  drop: "DROP",
  /** Send a few tokens of a stream (or nothing of a JSON answer, not even its headers), then wait until the
   * client goes away. */
  hold: "HOLD",
} as const;

export type Behaviour = "normal" | keyof typeof HOSTILE;

/** Tokens sent before a `reset` or `hold` stops the answer. */
const TOKENS_BEFORE_STOP = 3;

export interface Answer {
  /** The gateway's X-Request-Id, which its log line carries as request_id. */
  requestId: string;
  /** The X-Case header the test sent, to tell requests apart. */
  testCase: string | undefined;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, any> | null;
  behaviour: Behaviour;
  stream: boolean;
  /** Whether the body the server received asked for the usage in the stream. */
  includeUsage: boolean;
  /** The counts the server reported (hostile ones included), or null when it reports none. */
  usage: { promptTokens: number; completionTokens: number } | null;
}

export interface ModelServer {
  url: string;
  server: Server;
  /** Every request the gateway forwarded, in order of arrival. */
  answers: Answer[];
  answerFor(requestId: string): Answer | undefined;
  /** Resolves once the request sent with the header X-Hold: `id` is being held (HOSTILE.hold). */
  held(id: string): Promise<void>;
  close(): Promise<void>;
}

export async function startModelServer(): Promise<ModelServer> {
  const answers: Answer[] = [];
  const holding = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  const holdOf = (id: string) => {
    let hold = holding.get(id);
    if (!hold) {
      let resolve = () => {};
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      hold = { promise, resolve };
      holding.set(id, hold);
    }
    return hold;
  };
  const server = createServer((req, res) => {
    const id = req.headers["x-hold"];
    const onHold = typeof id === "string" ? () => holdOf(id).resolve() : () => {};
    readRequestBody(req)
      .then((body) => answer(req, res, body, answers, onHold))
      .catch(() => res.destroy());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    answers,
    answerFor: (requestId) => answers.find((a) => a.requestId === requestId),
    held: (id) => holdOf(id).promise,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  raw: Buffer,
  answers: Answer[],
  onHold: () => void,
) {
  const path = (req.url ?? "/").split("?")[0] as string;
  const method = req.method ?? "GET";
  let body: Record<string, any> | null = null;
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return send(res, 400, {
        contentType: "application/json",
        text: JSON.stringify({ detail: "body is not JSON" }),
      });
    }
  }
  const words = promptWords(body);
  const behaviour = behaviourOf(words);
  const record: Answer = {
    requestId: String(req.headers["x-request-id"] ?? ""),
    testCase: req.headers["x-case"] as string | undefined,
    method,
    path,
    headers: req.headers,
    body,
    behaviour,
    stream: body?.stream === true,
    includeUsage: body?.stream_options?.include_usage === true,
    usage: null,
  };
  // The gateway's start-up probe (GET /v1/models) carries no request id: it is not a request of the test.
  if (record.requestId !== "") answers.push(record);
  if (behaviour === "drop") {
    res.destroy();
    return;
  }
  const route = `${method} ${path}`;
  if (route === "GET /v1/models") return send(res, 200, modelList());
  if (method !== "POST" || body === null) return notFound(res);

  const prompt = Math.max(1, words.length);
  if (route === "POST /v1/messages/count_tokens") {
    return send(res, 200, countTokens(prompt));
  }
  if (route === "POST /v1/embeddings") {
    const usage = { promptTokens: reported(behaviour, prompt), completionTokens: 0 };
    record.usage = usage;
    return send(res, 200, embeddings(body, usage.promptTokens));
  }
  const generation = generationFor(path, body.model);
  if (generation === undefined) return notFound(res);
  const cap = generation.cap(body);
  const completion = Math.min(cap ?? COMPLETION_TOKENS, COMPLETION_TOKENS);
  // Chat completions honour n: each choice is as long, and the usage counts them all.
  const choices = path === "/v1/chat/completions" && typeof body.n === "number" ? body.n : 1;
  const usage = {
    promptTokens: reported(behaviour, prompt),
    completionTokens: behaviour === "overflow" ? Number.MAX_SAFE_INTEGER : completion * choices,
  };
  record.usage = behaviour === "reset" || behaviour === "hold" ? null : usage;
  const reply: Reply = {
    request: body,
    choices,
    model: String(body.model),
    words: completionText(completion).split(" ").filter(Boolean),
    stopped: cap !== null && completion === cap,
    maxOutputTokens: cap,
    usage,
  };
  if (body.stream === true) {
    const events = generation.stream(reply, record.includeUsage);
    return streamEvents(res, generation.streamType, events, behaviour, onHold);
  }
  if (behaviour === "reset") return resetMidBody(res, generation.json(reply));
  if (behaviour === "hold") return holdUntilClosed(res, onHold);
  return send(res, 200, { contentType: generation.jsonType, text: generation.json(reply) });
}

// --- Usage ---------------------------------------------------------------------------------------------

/** The words of everything a request asks the model to read: messages, prompt, input, system, instructions. */
export function promptWords(body: Record<string, any> | null): string[] {
  if (body === null) return [];
  const texts: string[] = [];
  const collect = (node: unknown): void => {
    if (typeof node === "string") texts.push(node);
    else if (Array.isArray(node)) for (const item of node) collect(item);
    else if (typeof node === "object" && node !== null) {
      const record = node as Record<string, unknown>;
      for (const field of ["content", "text", "input"]) collect(record[field]);
    }
  };
  for (const field of ["system", "instructions", "messages", "prompt", "input"]) collect(body[field]);
  return texts.join(" ").split(/\s+/).filter(Boolean);
}

function behaviourOf(words: string[]): Behaviour {
  for (const [behaviour, word] of Object.entries(HOSTILE)) {
    if (words.includes(word)) return behaviour as Behaviour;
  }
  return "normal";
}

function reported(behaviour: Behaviour, prompt: number): number {
  if (behaviour === "overflow") return Number.MAX_SAFE_INTEGER;
  if (behaviour === "overage") return OVERAGE_PROMPT_TOKENS;
  return prompt;
}

/** FastAPI's answer to a route it does not have. */
function notFound(res: ServerResponse): void {
  send(res, 404, { contentType: "application/json", text: JSON.stringify({ detail: "Not Found" }) });
}

// --- Writing -------------------------------------------------------------------------------------------

function send(res: ServerResponse, status: number, body: Body): void {
  res.writeHead(status, { "content-type": body.contentType, "content-length": Buffer.byteLength(body.text) });
  res.end(body.text);
}

async function streamEvents(
  res: ServerResponse,
  contentType: string,
  events: string[],
  behaviour: Behaviour,
  onHold: () => void,
): Promise<void> {
  res.writeHead(200, { "content-type": contentType });
  res.flushHeaders();
  const stopAt = behaviour === "reset" || behaviour === "hold" ? TOKENS_BEFORE_STOP + 1 : events.length;
  for (const event of events.slice(0, stopAt)) {
    if (res.destroyed) return;
    await write(res, event);
  }
  if (behaviour === "reset") res.destroy();
  else if (behaviour === "hold") await holdUntilClosed(res, onHold);
  else res.end();
}

/** Declares the whole body, sends half of it, and cuts the connection. */
async function resetMidBody(res: ServerResponse, body: string): Promise<void> {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  await write(res, body.slice(0, body.length >> 1));
  res.destroy();
}

/** Keeps the response open, sending nothing more, until the other side closes it. */
async function holdUntilClosed(res: ServerResponse, onHold: () => void): Promise<void> {
  if (res.destroyed) return;
  const closed = once(res, "close");
  onHold();
  await closed;
}

/** Writes a chunk and waits until it has been handed to the socket, so that it is sent on its own. */
function write(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve) => res.write(chunk, () => resolve()));
}
