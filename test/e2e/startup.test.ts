// How `serve` starts, as a real process against real redis-servers: it binds every listener or exits 1 at
// once naming the port and where it was set; it checks the Redis that holds the money and refuses one that
// would lose it; it says what happens to its Redis connection and whether the model server answers.

import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, inject, it } from "vitest";
import { freePort, type RedisServer, startRedisServer } from "../../src/demo/redis-server.js";
import { type ServeProcess, spawnGateway, spawnServe } from "../helpers/gateway-process.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

/** Stopped after each test, whatever happened in it. */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function serve(...args: Parameters<typeof spawnServe>): ServeProcess {
  const process = spawnServe(...args);
  cleanups.push(() => process.stop("SIGKILL"));
  return process;
}

async function redisServer(args: string[] = [], port?: number): Promise<RedisServer> {
  const server = await startRedisServer({ args, ...(port !== undefined && { port }) });
  cleanups.push(() => server.stop());
  return server;
}

/** A port some other process holds. */
async function takenPort(): Promise<number> {
  const server: Server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as { port: number }).port;
}

const LISTENING = "tunnel-gateway listening";
/** Generous for a loaded machine; a gateway left running half-started would stay up for good. */
const EXIT_MS = 10_000;

async function exitOf(process: ServeProcess): Promise<{ code: number | null; stderr: string }> {
  const code = await Promise.race([
    process.exited,
    new Promise<"running">((resolve) => setTimeout(resolve, EXIT_MS, "running")),
  ]);
  if (code === "running") throw new Error(`serve was still running after ${EXIT_MS} ms: ${process.stderr()}`);
  return { code, stderr: process.stderr() };
}

describe("a listener that cannot bind", () => {
  const redis = () => ({ url: inject("redisUrl") });

  it("stops serve with exit 1 and one line naming the port and the flag that chose it", async () => {
    const port = await takenPort();
    const process = serve({ redis: redis() }, {}, ["--metrics-port", String(port)]);
    const { code, stderr } = await exitOf(process);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `error: cannot listen for metrics on 127.0.0.1:${port}: the port is in use by another process ` +
        `(metrics.port ${port} from --metrics-port)\n`,
    );
    // It never said it was listening: the public listener it had bound was closed again.
    expect(process.logs.map((line) => line.msg)).not.toContain(LISTENING);
  });

  it("names the variable or the file line that chose the port, and the admin and public listeners too", async () => {
    const metrics = await takenPort();
    const fromVariable = serve({ redis: redis() }, { TUNNEL_METRICS_PORT: String(metrics) });
    expect((await exitOf(fromVariable)).stderr).toMatch(
      new RegExp(`\\(metrics\\.port ${metrics} from TUNNEL_METRICS_PORT\\)\\n$`),
    );

    const admin = await takenPort();
    const fromFile = serve(
      { redis: redis(), admin: { port: admin } },
      { TUNNEL_ADMIN_TOKEN: "an-admin-token-of-some-length" },
    );
    const { code, stderr } = await exitOf(fromFile);
    expect(code).toBe(1);
    // The helper's file holds `admin:` then `port:` on the line after it.
    expect(stderr).toMatch(
      new RegExp(
        `^error: cannot listen for the admin API on 127\\.0\\.0\\.1:${admin}: the port is in use by another ` +
          `process \\(admin\\.port ${admin} from ${fromFile.file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} line \\d+\\)\\n$`,
      ),
    );
    expect(stderr).not.toContain("an-admin-token");

    const publicPort = await takenPort();
    const fromFlag = serve({ redis: redis() }, {}, ["--port", String(publicPort)]);
    expect((await exitOf(fromFlag)).stderr).toMatch(
      new RegExp(
        `for the public API on 127\\.0\\.0\\.1:${publicPort}: .*\\(listen\\.port ${publicPort} from --port\\)`,
      ),
    );
  });

  it("reports service_unavailable with --json, never internal_error", async () => {
    const port = await takenPort();
    const { code, stderr } = await exitOf(
      serve({ redis: redis() }, {}, ["--metrics-port", String(port), "--json"]),
    );
    expect(code).toBe(1);
    expect(JSON.parse(stderr)).toEqual({
      error: {
        message: expect.stringContaining(`cannot listen for metrics on 127.0.0.1:${port}`),
        type: "service_unavailable",
        code: "service_unavailable",
      },
    });
  });
});

describe("a TLS certificate that does not load", () => {
  it("stops serve as a configuration error naming the settings, not as a bug", async () => {
    const tls = { certFile: "/nonexistent/tls.crt", keyFile: "/nonexistent/tls.key" };
    const { code, stderr } = await exitOf(serve({ redis: { url: inject("redisUrl") }, tls }, {}, ["--json"]));
    expect(code).toBe(1);
    expect(JSON.parse(stderr)).toEqual({
      error: {
        message: expect.stringMatching(
          /^cannot load the TLS certificate and key \(tls\.certFile \/nonexistent\/tls\.crt from .* line \d+, tls\.keyFile .*\): ENOENT/,
        ),
        type: "invalid_request_error",
        code: "invalid_request",
      },
    });
  });
});

describe("the Redis checks at start", () => {
  it("refuse a Redis that persists nothing, saying how to turn AOF on", async () => {
    const server = await redisServer();
    const process = serve({ redis: { url: server.url, allowNoPersistence: false } });
    const { code, stderr } = await exitOf(process);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `error: refusing to run on this Redis: Redis at 127.0.0.1:${server.port} persists nothing (appendonly no, ` +
        "no RDB snapshots): a restart would lose every balance and key. Turn append-only persistence on: " +
        "`redis-cli CONFIG SET appendonly yes` then `redis-cli CONFIG REWRITE` (or `appendonly yes` in " +
        "redis.conf); for a throwaway Redis, set redis.allowNoPersistence: true\n",
    );
  });

  it("refuse a Redis that may evict keys, saying how to stop it", async () => {
    const server = await redisServer(["--maxmemory-policy", "allkeys-lru"]);
    const { code, stderr } = await exitOf(serve({ redis: { url: server.url } }));
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^error: refusing to run on this Redis: .* has maxmemory-policy allkeys-lru: when memory runs out it would delete any key — balances, API keys, budgets — silently\. Set maxmemory-policy noeviction/,
    );

    const volatile = await redisServer(["--maxmemory-policy", "volatile-lru"]);
    const refused = await exitOf(serve({ redis: { url: volatile.url } }));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /maxmemory-policy volatile-lru: .* keys that expire — the daily usage counters/,
    );
  });

  it("accept a Redis with append-only persistence, and warn about one with RDB snapshots only", async () => {
    const aof = await redisServer(["--appendonly", "yes"]);
    const gateway = await spawnGateway({ redis: { url: aof.url, allowNoPersistence: false } });
    cleanups.push(() => gateway.stop());
    expect(gateway.logs.find((line) => line.msg.startsWith("Redis checked"))).toMatchObject({ level: 30 });
    expect(gateway.logs.filter((line) => line.level >= 40 && /Redis/.test(line.msg))).toEqual([]);

    const rdb = await redisServer(["--save", "60 1"]);
    const snapshots = await spawnGateway({ redis: { url: rdb.url, allowNoPersistence: false } });
    cleanups.push(() => snapshots.stop());
    expect(snapshots.logs.map((line) => line.msg)).toContainEqual(
      expect.stringMatching(/persists by RDB snapshots only \(save 60 1\): a crash loses/),
    );
  });

  it("wait for a Redis that is not up yet, answering 503 meanwhile, and check it once it is", async () => {
    const port = await freePort();
    const process = serve({ redis: { url: `redis://127.0.0.1:${port}`, allowNoPersistence: false } });
    await waitUntil(() => process.logs.some((line) => line.msg === LISTENING), "the gateway to listen");
    const { url } = process.logs.find((line) => line.msg === LISTENING) as { url: string };
    await waitUntil(
      () => process.logs.some((line) => line.msg === "Redis is not reachable yet; retrying"),
      "the gateway to say Redis is not reachable",
    );
    expect(process.logs.find((line) => line.msg === "Redis is not reachable yet; retrying")).toMatchObject({
      level: 40,
      err: `connect ECONNREFUSED 127.0.0.1:${port}`,
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const refused = await fetch(`${url}/v1/chat/completions`, { method: "POST" });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");

    // A Redis that persists nothing comes up: checked on its first connection, refused, serve exits 1.
    await redisServer([], port);
    const { code, stderr } = await exitOf(process);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error: refusing to run on this Redis: .* persists nothing/);
  });
});

describe("the Redis connection", () => {
  it("is reported lost with its cause, and reachable again", async () => {
    const port = await freePort();
    let server = await redisServer([], port);
    const gateway = await spawnGateway({ redis: { url: server.url } });
    cleanups.push(() => gateway.stop());
    expect(gateway.logs.map((line) => line.msg)).toContain("Redis connected");

    await server.stop();
    await waitUntil(
      () => gateway.logs.some((line) => line.msg === "Redis is not reachable; reconnecting"),
      "the gateway to report Redis unreachable",
    );
    expect(gateway.logs.find((line) => line.msg === "Redis connection lost; reconnecting")).toMatchObject({
      level: 40,
    });
    expect(gateway.logs.find((line) => line.msg === "Redis is not reachable; reconnecting")).toMatchObject({
      err: `connect ECONNREFUSED 127.0.0.1:${port}`,
    });
    expect(JSON.stringify(gateway.logs)).not.toContain("Connection is closed");

    server = await redisServer([], port);
    await waitUntil(
      () => gateway.logs.some((line) => line.msg === "Redis reachable again"),
      "the gateway to report Redis back",
    );
    expect(gateway.logs.find((line) => line.msg === "Redis reachable again")).toMatchObject({
      level: 30,
      down_ms: expect.any(Number),
    });
    await waitUntil(
      async () => (await fetch(`${gateway.url}/readyz`)).status === 200,
      "the gateway to be ready again",
    );
  });
});

describe("the model server at start", () => {
  let upstream: StubUpstream | undefined;
  afterEach(async () => {
    await upstream?.close();
    upstream = undefined;
  });

  it("is asked once whether it answers, with a warning when it does not", async () => {
    const port = await freePort();
    const silent = await spawnGateway({
      redis: { url: inject("redisUrl") },
      upstream: { url: `http://127.0.0.1:${port}` },
    });
    cleanups.push(() => silent.stop());
    await waitUntil(() => silent.logs.some((line) => /^model server/.test(line.msg)), "the upstream probe");
    expect(silent.logs.find((line) => /^model server/.test(line.msg))).toMatchObject({
      level: 40,
      msg: "model server does not answer GET /v1/models; requests will get 502 or 504 until it does",
      err: `connect ECONNREFUSED 127.0.0.1:${port}`,
    });

    upstream = await startStubUpstream();
    const answering = await spawnGateway({
      redis: { url: inject("redisUrl") },
      upstream: { url: upstream.url, apiKey: "upstream-secret-key" },
    });
    cleanups.push(() => answering.stop());
    await waitUntil(
      () => answering.logs.some((line) => /^model server/.test(line.msg)),
      "the upstream probe",
    );
    expect(answering.logs.find((line) => /^model server/.test(line.msg))).toMatchObject({
      level: 30,
      msg: "model server answers",
      status: 200,
    });
    expect(upstream.probes.map((probe) => [probe.method, probe.url, probe.headers.authorization])).toEqual([
      ["GET", "/v1/models", "Bearer upstream-secret-key"],
    ]);
    expect(JSON.stringify(answering.logs)).not.toContain("upstream-secret-key");
  });

  it("is refused when its URL ends in /v1, which would double the client's /v1", async () => {
    const { code, stderr } = await exitOf(
      serve({ redis: { url: inject("redisUrl") } }, {}, ["--upstream", "http://127.0.0.1:8000/v1"]),
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^error: invalid configuration: --upstream: upstream\.url: must not end in \/v1: the gateway forwards the client's path as it is, so a request for \/v1\/chat\/completions would go to …\/v1\/v1\/chat\/completions/,
    );
  });
});
