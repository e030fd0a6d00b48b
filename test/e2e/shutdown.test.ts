// Graceful shutdown of a real gateway process: SIGTERM in the middle of streaming requests. Readiness turns
// 503 at once, the streams finish, every request is billed, and the process exits 0; requests still running
// when the drain ends are aborted and billed for what they produced.

import { request } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, inject, it } from "vitest";
import { ACTOR } from "../helpers/actor.js";
import { startTestGateway } from "../helpers/gateway.js";
import { type GatewayProcess, spawnGateway } from "../helpers/gateway-process.js";
import { openStore, type TestStore, testPrefix } from "../helpers/store.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

const PRICING = { default: { input: 1000, output: 2000, maxOutputTokens: 200 } };

let upstream: StubUpstream;
let gateway: GatewayProcess | undefined;
let store: TestStore;

afterEach(async () => {
  await gateway?.stop("SIGKILL");
  await upstream?.close();
  store?.close();
});

interface Stream {
  /** Resolves with the whole body, or with what arrived before the connection was cut. */
  done: Promise<{ body: string; complete: boolean }>;
  firstChunk: Promise<void>;
}

function stream(base: string, key: string, tokens: number): Stream {
  let first!: () => void;
  const firstChunk = new Promise<void>((resolve) => (first = resolve));
  const done = new Promise<{ body: string; complete: boolean }>((resolve) => {
    const req = request(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString();
        first();
      });
      res.on("end", () => resolve({ body, complete: res.complete }));
      res.on("error", () => resolve({ body, complete: false }));
      res.on("aborted", () => resolve({ body, complete: false }));
    });
    req.on("error", () => resolve({ body: "", complete: false }));
    req.end(
      JSON.stringify({
        model: "demo-small",
        stream: true,
        max_tokens: tokens,
        messages: [{ role: "user", content: "go" }],
      }),
    );
  });
  return { done, firstChunk };
}

async function setup(drainSeconds: number, tokenIntervalMs: number) {
  upstream = await startStubUpstream({ tokenIntervalMs, defaultCompletionTokens: 1000 });
  const prefix = testPrefix();
  store = await openStore({ prefix });
  await store.accountService.create({ id: "acme", balance: "1000" }, ACTOR);
  const { value } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
  gateway = await spawnGateway(
    {
      pricing: PRICING,
      upstream: { url: upstream.url },
      redis: { url: inject("redisUrl"), prefix },
      shutdown: { drainSeconds },
    },
    { TUNNEL_LOG_LEVEL: "info" },
  );
  return value;
}

function requestLines(logs: Record<string, any>[]) {
  return logs.filter((line) => line.msg === "request");
}

/**
 * A connection that streams a completion and, once the stream has begun, takes a second request pipelined
 * behind it: a connection busy with a response is not closed when the drain starts, so the second request
 * reaches the gateway after the drain has begun. Resolves with every byte the connection received.
 */
interface PipelinedConnection {
  firstChunk: Promise<void>;
  send(request: string): void;
  received: Promise<string>;
}

function pipelined(base: string, key: string, tokens: number): PipelinedConnection {
  const { hostname, port } = new URL(base);
  const body = JSON.stringify({
    model: "demo-small",
    stream: true,
    max_tokens: tokens,
    messages: [{ role: "user", content: "go" }],
  });
  const socket = connect(Number(port), hostname);
  socket.write(
    [
      "POST /v1/chat/completions HTTP/1.1",
      `Host: ${hostname}:${port}`,
      `Authorization: Bearer ${key}`,
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(body)}`,
      "",
      body,
    ].join("\r\n"),
  );
  let text = "";
  let first!: () => void;
  const firstChunk = new Promise<void>((resolve) => (first = resolve));
  const received = new Promise<string>((resolve, reject) => {
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("data: ")) first();
    });
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
  return { firstChunk, send: (request) => socket.write(request), received };
}

describe("the drain", () => {
  it("turns readiness to 503 the moment it starts, while requests are still running", async () => {
    upstream = await startStubUpstream({ tokenIntervalMs: 20, defaultCompletionTokens: 1000 });
    const t = await startTestGateway({ upstreamUrl: upstream.url, config: { pricing: PRICING } });
    try {
      const key = await t.newKey();
      const before = await t.fetch("/readyz");
      expect(before.status).toBe(200);
      expect(await before.json()).toEqual({ status: "ready" });
      const connection = pipelined(t.url, key.value, 20);
      await connection.firstChunk;
      const closing = t.gateway.close(10_000);
      connection.send("GET /readyz HTTP/1.1\r\nHost: gateway\r\n\r\n");
      const received = await connection.received;
      await closing;

      // The stream ran to its end, then the readiness answer followed it on the same connection.
      const second = received.indexOf("HTTP/1.1 ", 1);
      expect(second).toBeGreaterThan(0);
      const stream = received.slice(0, second);
      expect(stream.startsWith("HTTP/1.1 200 ")).toBe(true);
      expect(stream).toContain("data: [DONE]");
      expect(stream.endsWith("0\r\n\r\n")).toBe(true); // the chunked body's last chunk
      const readiness = received.slice(second);
      expect(readiness.startsWith("HTTP/1.1 503 ")).toBe(true);
      expect(readiness.toLowerCase()).toContain("connection: close");
      expect(JSON.parse(readiness.slice(readiness.indexOf("\r\n\r\n") + 4))).toEqual({
        status: "unavailable",
        reason: "shutting down",
      });
    } finally {
      await t.close();
    }
  });
});

describe("SIGTERM", () => {
  it("lets the streams in flight finish and bills every one, then exits 0", async () => {
    const key = await setup(20, 40);
    const process = gateway as GatewayProcess;
    const streams = Array.from({ length: 4 }, () => stream(process.url, key, 30));
    await Promise.all(streams.map((s) => s.firstChunk));
    process.child.kill("SIGTERM");

    // New connections are refused at once — a kubelet probe then fails — while the streams go on.
    await waitUntil(
      () =>
        new Promise<boolean>((resolve) =>
          request(`${process.url}/healthz`, { agent: false }, (res) => {
            res.resume();
            resolve(false);
          })
            .on("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"))
            .end(),
        ),
      "new connections to be refused",
    );

    const results = await Promise.all(streams.map((s) => s.done));
    for (const result of results) {
      expect(result.complete).toBe(true);
      expect(result.body.trimEnd().endsWith("data: [DONE]")).toBe(true);
      expect(result.body.split("\n\n").filter((event) => event.includes('"content"')).length).toBe(30);
    }
    expect(await process.exited).toBe(0);

    const lines = requestLines(process.logs);
    expect(lines).toHaveLength(4);
    expect(
      lines.every(
        (line) => line.outcome === "completed" && line.completion_tokens === 30 && !line.usage_estimated,
      ),
    ).toBe(true);
    // Each stream: 1 prompt token ("go") at 1000 µ₽ and 30 completion tokens at 2000 µ₽ = 61 000 µ₽.
    for (const line of lines) expect(line).toMatchObject({ prompt_tokens: 1, cost_rub: 0.061 });
    const key0 = (await store.keys.list("acme"))[0];
    expect(key0?.spent).toBe(4 * 61_000);
    expect((await store.accounts.require("acme")).balance).toBe(1_000_000_000 - 4 * 61_000);
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("aborts the requests still running when the drain ends and bills what they produced", async () => {
    const key = await setup(1, 50);
    const process = gateway as GatewayProcess;
    const long = stream(process.url, key, 200); // 10 s of streaming, far beyond the 1 s drain
    await long.firstChunk;
    process.child.kill("SIGTERM");
    const result = await long.done;
    expect(result.complete).toBe(false);
    expect(await process.exited).toBe(0);
    expect(await upstream.requests[0]?.aborted).toBe(true);

    const [line] = requestLines(process.logs);
    expect(line).toMatchObject({ outcome: "shutdown", usage_estimated: true, status: 200 });
    expect(line?.completion_tokens).toBeGreaterThan(0);
    expect(line?.completion_tokens).toBeLessThan(200);
    expect(line?.cost_rub).toBeGreaterThan(0);
    expect((await store.keys.list("acme"))[0]?.spent).toBe(Math.round((line?.cost_rub ?? 0) * 1e6));
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });
});
