// `serve` in this process: the gateway runs until SIGTERM or SIGINT and then drains; a second signal
// during the drain aborts what is still running; a Redis that fails the start-up checks ends the run with
// the refusal, every listener closed. Signals are emitted on this process, not sent to it.

import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { loadConfig, type Override } from "../src/config/load.js";
import { isPortFree } from "../src/demo/ports.js";
import { freePort, startRedisServer } from "../src/demo/redis-server.js";
import { runGateway } from "../src/run-gateway.js";
import { ACTOR } from "./helpers/actor.js";
import { type Listening, listen } from "./helpers/http.js";
import { openStore, testPrefix } from "./helpers/store.js";
import { waitUntil } from "./helpers/wait.js";

const cleanups: (() => Promise<void> | void)[] = [];
let signalListeners: Record<"SIGTERM" | "SIGINT", NodeJS.SignalsListener[]>;
beforeEach(() => {
  signalListeners = { SIGTERM: process.listeners("SIGTERM"), SIGINT: process.listeners("SIGINT") };
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  // runGateway keeps its second-signal handlers after a clean stop; they must not outlive the test.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    for (const listener of process.listeners(signal)) {
      if (!signalListeners[signal].includes(listener)) process.off(signal, listener);
    }
  }
});

async function loaded(env: Record<string, string>, overrides: Override[] = []) {
  const port = await freePort();
  const prefix = testPrefix();
  const config = loadConfig({
    env: {
      TUNNEL_PORT: String(port),
      TUNNEL_UPSTREAM_URL: "http://127.0.0.1:9",
      TUNNEL_REDIS_URL: inject("redisUrl"),
      TUNNEL_REDIS_PREFIX: prefix,
      TUNNEL_LOG_LEVEL: "silent",
      ...env,
    },
    overrides: [
      { path: ["metrics", "enabled"], value: false, source: "test" },
      { path: ["redis", "allowNoPersistence"], value: true, source: "test" },
      ...overrides,
    ],
  });
  return { config, port, prefix, url: `http://127.0.0.1:${port}` };
}

async function ready(url: string): Promise<void> {
  await waitUntil(
    async () => (await fetch(`${url}/readyz`).catch(() => null))?.status === 200,
    "the gateway to be ready",
  );
}

describe("runGateway", () => {
  it("runs until SIGTERM, then stops and closes its listener", async () => {
    const { config, port, url } = await loaded({});
    let finished = false;
    const running = runGateway(config).then(() => {
      finished = true;
    });
    await ready(url);
    expect(finished).toBe(false);
    process.emit("SIGTERM");
    await running;
    expect(await isPortFree(port)).toBe(true);
  });

  it("stops on SIGINT as well", async () => {
    const { config, port, url } = await loaded({});
    const running = runGateway(config);
    await ready(url);
    process.emit("SIGINT");
    await running;
    expect(await isPortFree(port)).toBe(true);
  });

  it("aborts the requests still running at a second signal during the drain, and then stops", async () => {
    let upstreamAsked = false;
    const upstream: Listening = await listen(() => {
      upstreamAsked = true; // and never answers
    });
    cleanups.push(() => upstream.close());
    const { config, url, prefix } = await loaded({
      TUNNEL_UPSTREAM_URL: upstream.url,
      TUNNEL_DRAIN_SECONDS: "600",
    });
    const store = await openStore({ prefix });
    cleanups.push(() => store.close());
    await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
    const { value } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);

    const running = runGateway(config);
    await ready(url);
    const answer = fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${value}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 5 }),
    }).then(
      (res) => res.status,
      () => "cut off",
    );
    await waitUntil(() => upstreamAsked, "the request to reach the model server");
    process.emit("SIGTERM");
    // Drains for up to ten minutes unless told again.
    await waitUntil(
      async () => (await fetch(`${url}/readyz`).catch(() => null))?.status !== 200,
      "the drain to begin",
    );
    process.emit("SIGINT");
    await running;
    expect(await answer).not.toBe(200);
    // Billed for what it produced (nothing), and its reservation released.
    expect((await store.billing.reserved("acme")).account).toBe(0);
  });

  it("ends with the refusal, every listener closed, when Redis fails the start-up checks", async () => {
    const redis = await startRedisServer({ args: ["--maxmemory-policy", "allkeys-lru"] });
    cleanups.push(() => redis.stop());
    const { config, port } = await loaded({ TUNNEL_REDIS_URL: redis.url });
    await expect(runGateway(config)).rejects.toMatchObject({
      code: "service_unavailable",
      message: expect.stringMatching(/^refusing to run on this Redis: .*maxmemory-policy allkeys-lru/),
    });
    expect(await isPortFree(port)).toBe(true);
  });
});
