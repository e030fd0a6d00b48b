// The inspect stage on real HTTP requests: the body is read within limits.maxBodyBytes and what it asks for
// is written on the passage and the request — the model admission checks (from the body, or from the path of
// GET /v1/models/{model}), the caps and whether it streams, and whether the model server runs it (a request
// without a body, or one that only counts tokens, is free). A body too large, malformed, or not received whole
// is refused before anything is reserved.

import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import { EndpointTable } from "../../../src/proxy/request/endpoints.js";
import { classify } from "../../../src/proxy/stages/classify.js";
import { inspect } from "../../../src/proxy/stages/inspect.js";
import type { Inspected, Passage } from "../../../src/proxy/stages/phases.js";
import { json } from "../../helpers/http.js";
import { type StageServer, serveStages } from "../../helpers/stages.js";
import { waitUntil } from "../../helpers/wait.js";

const LIMIT = 1024;
const config = configSchema.parse({ limits: { maxBodyBytes: LIMIT } });

let server: StageServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The stage behind classify, its credential written in as authenticate would. */
async function serve(): Promise<StageServer> {
  const credential = { ref: { accountId: "a", keyId: "k" }, token: "t", hash: "h" };
  server = await serveStages([
    (passage: Passage) => void Object.assign(passage, { credential }),
    classify.create({ endpoints: new EndpointTable(config.endpoints) }),
    inspect.create({ config }),
  ]);
  return server;
}

function inspected(at: StageServer, index = 0): Inspected {
  const ran = at.ran[index];
  expect(ran?.error).toBeNull();
  return ran?.passage as unknown as Inspected;
}

const post = (body: string, contentType = "application/json"): RequestInit => ({
  method: "POST",
  headers: { "content-type": contentType },
  body,
});

describe("the inspect stage", () => {
  it("reads a generation's body and writes its model, caps and stream on the passage and the request", async () => {
    const at = await serve();
    const sent = JSON.stringify({
      model: "qwen",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 50,
      stream: true,
    });
    expect((await fetch(`${at.url}/v1/chat/completions`, post(sent))).status).toBe(204);
    const passage = inspected(at);
    expect(passage.body.toString("utf8")).toBe(sent);
    expect(passage.check).toEqual({ kind: "named", model: "qwen" });
    expect(passage.facts).toMatchObject({ maxOutputTokens: 50, stream: true, choices: 1 });
    expect(passage.facts.capsSet).toEqual([["max_tokens"]]);
    expect(passage.request).toMatchObject({
      model: "qwen",
      endpointClass: "generation",
      usageClass: "generation",
    });
  });

  it("takes the model of GET /v1/models/{model} from its path, and leaves a bodiless request free", async () => {
    const at = await serve();
    expect((await fetch(`${at.url}/v1/models/org%2Fbig-model`)).status).toBe(204);
    const passage = inspected(at);
    expect(passage.check).toEqual({ kind: "named", model: "org/big-model" });
    expect(passage.body.length).toBe(0);
    expect(passage.request).toMatchObject({
      model: "org/big-model",
      endpointClass: "free",
      usageClass: null,
    });
  });

  it("leaves a generation endpoint sent no body free, with no model to check", async () => {
    const at = await serve();
    expect((await fetch(`${at.url}/v1/chat/completions`, { method: "POST" })).status).toBe(204);
    const passage = inspected(at);
    expect(passage.check).toEqual({ kind: "none" });
    expect(passage.request).toMatchObject({ model: null, endpointClass: "free", usageClass: null });
  });

  it("leaves a request that only counts tokens free, though it has a body and a model", async () => {
    const at = await serve();
    const sent = JSON.stringify({ model: "qwen", prompt: "count me" });
    expect((await fetch(`${at.url}/tokenize`, post(sent))).status).toBe(204);
    const passage = inspected(at);
    expect(passage.request).toMatchObject({ model: "qwen", endpointClass: "free", usageClass: null });
  });

  it("marks a body whose model cannot be read as unknown, for a key with a model list to refuse", async () => {
    const at = await serve();
    const sent = JSON.stringify({ messages: [{ role: "user", content: "hi" }] });
    expect((await fetch(`${at.url}/v1/chat/completions`, post(sent))).status).toBe(204);
    const passage = inspected(at);
    expect(passage.check.kind).not.toBe("named");
    expect(passage.request.model).toBeNull();
  });

  it("refuses a body declared larger than limits.maxBodyBytes with 413 payload_too_large, reading none of it", async () => {
    const at = await serve();
    const res = await fetch(`${at.url}/v1/chat/completions`, post("x".repeat(LIMIT + 1)));
    expect(res.status).toBe(413);
    expect((await json(res)).error.code).toBe("payload_too_large");
    expect(at.ran[0]?.passage.body).toBeNull();
  });

  it("refuses a body without a declared length once it passes limits.maxBodyBytes, with 413", async () => {
    const at = await serve();
    const chunks = [Buffer.alloc(LIMIT, "x"), Buffer.from("xx")];
    const res = await fetch(`${at.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new ReadableStream({
        pull(controller) {
          const chunk = chunks.shift();
          if (chunk === undefined) controller.close();
          else controller.enqueue(chunk);
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await json(res)).error.code).toBe("payload_too_large");
    expect(at.ran[0]?.passage.facts).toBeNull();
  });

  it("refuses JSON that does not parse with 400 invalid_request, before anything is known of it", async () => {
    const at = await serve();
    const res = await fetch(`${at.url}/v1/chat/completions`, post('{"model": "qwen", '));
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe("invalid_request");
    const passage = at.ran[0]?.passage;
    expect(passage?.facts).toBeNull();
    expect(passage?.request.usageClass).toBeNull();
  });

  it("refuses a body followed by bytes that are not HTTP, which no answer could reach", async () => {
    const at = await serve();
    const { port } = new URL(at.url);
    const body = JSON.stringify({ model: "qwen", messages: [] });
    const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const answer = await rawExchange(Number(port), `${head}${body}NOT HTTP AT ALL\r\n\r\n`);
    await waitUntil(() => at.ran.length === 1, "the stages to run");
    const { error, passage } = at.ran[0] as NonNullable<(typeof at.ran)[0]>;
    expect(error).toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("bytes that are not HTTP followed it"),
    });
    expect(passage.facts).toBeNull();
    // The body was never taken as read: no 2xx reached the client for it.
    expect(answer).not.toMatch(/^HTTP\/1\.1 2/);
  });
});

/** Writes `bytes` on a raw connection and ends its side; returns what came back before it closed. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => (received += chunk));
    socket.on("error", () => resolve(received));
    socket.on("close", () => resolve(received));
    socket.write(bytes, () => socket.end());
  });
}
