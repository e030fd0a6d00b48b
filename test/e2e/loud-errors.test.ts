// Errors that matter are loud, and an outage is not: a Lua script that fails on every request is counted
// per request by redis_script_errors_total{script} and logged at error level once, with the script's name,
// instead of an error line with a stack per request; a Redis outage writes one warning however many requests
// it refuses with 503, and no error line. Through a real gateway, on a Redis of the suite's or of the test's
// own that is stopped.

import { afterEach, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../src/demo/redis-server.js";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { chat } from "../helpers/leases.js";
import { parseExposition, total } from "../helpers/prometheus.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

let t: TestGateway | undefined;
let upstream: StubUpstream | undefined;
let server: RedisServer | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
  await upstream?.close();
  upstream = undefined;
  await server?.stop();
  server = undefined;
});

const errorLines = (gateway: TestGateway) => gateway.logs.filter((line) => (line.level as number) >= 50);

describe("a Lua script that fails on every request", () => {
  it("is counted per request and logged at error level once, naming the script, without a line per request", async () => {
    upstream = await startStubUpstream();
    t = await startTestGateway({ upstreamUrl: upstream.url, config: { pricing: PRICING } });
    const key = await t.newKey({ ttl: "30d" });
    // A record a script cannot read: its expiry is not a number, and the comparison fails in Lua.
    await t.store.redis.hset(t.store.redisKeys.key("acme", key.id), "expires_at", "soon");
    for (let i = 0; i < 5; i++) {
      const res = await chat(t, key.value);
      expect(res.status).toBe(503);
      expect((await json(res)).error.code).toBe("service_unavailable");
    }
    const reserveLines = errorLines(t).filter((line) => line.script === "reserve");
    expect(reserveLines).toEqual([
      expect.objectContaining({
        msg: "a Redis script failed",
        err: expect.stringContaining("attempt to compare"),
      }),
    ]);
    // The lease script reads the same field: it fails too, and is as loud.
    expect(errorLines(t).every((line) => line.msg === "a Redis script failed")).toBe(true);
    const samples = parseExposition(await (await fetch(`${t.gateway.metricsUrl}/metrics`)).text());
    expect(total(samples, "tunnel_gateway_redis_script_errors_total", { script: "reserve" })).toBe(5);
    expect(total(samples, "tunnel_gateway_redis_script_errors_total", { script: "settle" })).toBe(0);
  });
});

describe("a Redis outage", () => {
  it("writes one warning however many requests it answers 503, and no error line", async () => {
    server = await startRedisServer();
    upstream = await startStubUpstream();
    t = await startTestGateway({
      upstreamUrl: upstream.url,
      config: { pricing: PRICING, redis: { url: server.url }, billing: { leases: false } },
    });
    const key = await t.newKey();
    const before = await chat(t, key.value);
    expect(before.status).toBe(200);
    await before.text();
    await t.gateway.settled();
    const { port, dir } = server;
    await server.stop({ keepData: true });
    for (let i = 0; i < 10; i++) {
      const res = await chat(t, key.value);
      expect(res.status).toBe(503);
      await res.text();
    }
    const outage = t.logs.filter(
      (line) => line.msg === "Redis is unavailable: requests are answered 503 until it answers again",
    );
    expect(outage).toEqual([expect.objectContaining({ level: 40, err: expect.any(String) })]);
    expect(errorLines(t)).toEqual([]);
    // Back, so that the releases of the refused requests are written and the gateway closes at once.
    server = await startRedisServer({ port, dir });
    await t.gateway.settled();
  });
});
