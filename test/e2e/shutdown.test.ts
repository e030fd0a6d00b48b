// Graceful shutdown of a real gateway process: SIGTERM in the middle of streaming requests. Readiness turns
// 503 at once, the streams finish, every request is billed, and the process exits 0; requests still running
// when the drain ends are aborted and billed for what they produced.

import { request } from "node:http";
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

describe("the drain", () => {
  it("turns readiness to 503 the moment it starts, while requests are still running", async () => {
    upstream = await startStubUpstream({ tokenIntervalMs: 20, defaultCompletionTokens: 1000 });
    const t = await startTestGateway({ upstreamUrl: upstream.url, config: { pricing: PRICING } });
    try {
      const key = await t.newKey();
      expect(await t.gateway.context.readiness()).toBeNull();
      const running = stream(t.url, key.value, 20);
      await running.firstChunk;
      const closing = t.gateway.close(10_000);
      expect(await t.gateway.context.readiness()).toBe("shutting down");
      expect((await running.done).complete).toBe(true);
      await closing;
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
    const charged = lines.reduce((sum, line) => sum + Math.round(line.cost_rub * 1e6), 0);
    const key0 = (await store.keys.list("acme"))[0];
    expect(key0?.spent).toBe(charged);
    expect((await store.accounts.require("acme")).balance).toBe(1_000_000_000 - charged);
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
