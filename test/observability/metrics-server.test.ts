// The Prometheus endpoint over real HTTP: GET or HEAD /metrics only, behind the metrics token when one is
// set, and a scrape that fails answered 500 with why.

import { Counter, Gauge, Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { metricsHandler } from "../../src/observability/metrics-server.js";
import { type Listening, listen } from "../helpers/http.js";

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function registry(): Registry {
  const registry = new Registry();
  new Counter({ name: "scraped_total", help: "a counter", registers: [registry] }).inc(3);
  return registry;
}

describe("metricsHandler", () => {
  it("serves the registry at GET /metrics, any query, and headers alone for HEAD", async () => {
    const reg = registry();
    server = await listen(metricsHandler(reg, {}));
    const res = await fetch(`${server.url}/metrics?name[]=x`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(reg.contentType);
    expect(await res.text()).toMatch(/^scraped_total 3$/m);
    const head = await fetch(`${server.url}/metrics`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("answers 404 for every other path or method, saying where the metrics are", async () => {
    server = await listen(metricsHandler(registry(), {}));
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/metrics/"],
      ["GET", "/healthz"],
      ["POST", "/metrics"],
    ]) {
      const res = await fetch(`${server.url}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.text()).toBe("not found: metrics are at GET /metrics\n");
    }
  });

  it("asks for the metrics token when one is set, and serves only with the right one", async () => {
    server = await listen(metricsHandler(registry(), { token: "scrape-secret" }));
    for (const authorization of [
      undefined,
      "Bearer wrong",
      "Bearer scrape-secret-and-more",
      "scrape-secret",
      "Basic scrape-secret",
    ]) {
      const res = await fetch(`${server.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(await res.text()).not.toMatch(/scraped_total/);
    }
    const ok = await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer scrape-secret" } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/^scraped_total 3$/m);
  });

  it("answers a scrape that fails with 500 and why", async () => {
    const failing = new Registry();
    new Gauge({
      name: "broken",
      help: "a gauge whose collection fails",
      registers: [failing],
      collect() {
        throw new Error("probe exploded");
      },
    });
    server = await listen(metricsHandler(failing, {}));
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("probe exploded\n");
  });
});
