// The public listener's handler over real HTTP: a request id on every answer, the local routes answered by
// path alone (405 for another method), plain HTTP refused where HTTPS is required, every refusal reported
// to the observer, and everything else handed to the forwarder with whether it came over HTTPS. On the
// suite's Redis, with a recording forwarder and observer.

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../src/config/schema.js";
import { configSchema } from "../../src/config/schema.js";
import { createPublicHandler } from "../../src/server/public-server.js";
import { TransportSecurity } from "../../src/server/transport-security.js";
import { type Recorded, testContext } from "../helpers/context.js";
import { json, type Listening, listen } from "../helpers/http.js";
import { openStore, type TestStore } from "../helpers/store.js";

interface Forwarded {
  url: string;
  requestId: string;
  secure: boolean;
}

let store: TestStore;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function gateway(config: ConfigInput = {}) {
  const recorded: Recorded = testContext(store, config);
  const forwarded: Forwarded[] = [];
  const handler = createPublicHandler(
    recorded.ctx,
    (req, res, requestId, _arrivedAt, _path, secure) => {
      forwarded.push({ url: req.url ?? "", requestId, secure });
      res.writeHead(299).end();
    },
    new TransportSecurity(configSchema.parse(config).security),
  );
  server = await listen(handler);
  return { ...recorded, forwarded, url: server.url };
}

describe("request ids", () => {
  it("answer with the client's own id when it is acceptable, a new one otherwise, and forward the same", async () => {
    const g = await gateway();
    const own = await fetch(`${g.url}/healthz`, { headers: { "x-request-id": "trace-42" } });
    expect(own.headers.get("x-request-id")).toBe("trace-42");
    const replaced = await fetch(`${g.url}/v1/models`, { headers: { "x-request-id": "bad id" } });
    const id = replaced.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(g.forwarded).toEqual([{ url: "/v1/models", requestId: id, secure: false }]);
  });
});

describe("routing", () => {
  it("answers the local routes itself by path, whatever the query, and forwards every other path", async () => {
    const g = await gateway();
    const health = await fetch(`${g.url}/healthz?probe=1`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect((await fetch(`${g.url}/readyz`)).status).toBe(200);
    for (const path of ["/v1/chat/completions?x=1", "/healthz/", "/HEALTHZ", "/"]) {
      expect((await fetch(`${g.url}${path}`)).status, path).toBe(299);
    }
    expect(g.forwarded.map((f) => f.url)).toEqual(["/v1/chat/completions?x=1", "/healthz/", "/HEALTHZ", "/"]);
    expect(g.refused).toEqual([]);
  });

  it("refuses another method on a local route with 405 and Allow, and reports the refusal without the query", async () => {
    const g = await gateway();
    const res = await fetch(`${g.url}/v1/balance?x=1`, { method: "POST", body: "{}" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect((await json(res)).error.message).toBe("POST is not allowed here; use GET");
    expect(g.refused).toEqual([
      expect.objectContaining({
        requestId: res.headers.get("x-request-id"),
        method: "POST",
        path: "/v1/balance",
        status: 405,
        outcome: "refused",
        code: "method_not_allowed",
      }),
    ]);
    expect(g.forwarded).toEqual([]);
  });

  it("answers a local route that fails with 500, logs why, and reports the refusal", async () => {
    const g = await gateway();
    g.ctx.readiness = async () => {
      throw new Error("the readiness check broke");
    };
    const res = await fetch(`${g.url}/readyz`);
    expect(res.status).toBe(500);
    expect((await json(res)).error.code).toBe("internal_error");
    expect(g.logs).toEqual([
      expect.objectContaining({
        level: 50,
        msg: "local route failed",
        path: "/readyz",
        err: expect.objectContaining({ message: "the readiness check broke" }),
      }),
    ]);
    expect(g.refused).toEqual([
      expect.objectContaining({ path: "/readyz", status: 500, code: "internal_error" }),
    ]);
  });

  it("reports a refusal of a key as an error of the table, never forwarding it", async () => {
    const g = await gateway();
    const res = await fetch(`${g.url}/v1/key`, { headers: { authorization: "Bearer sk-tunnel-nothing" } });
    expect(res.status).toBe(401);
    expect(g.refused).toEqual([
      expect.objectContaining({ path: "/v1/key", status: 401, code: "invalid_api_key" }),
    ]);
    expect(g.logs).toEqual([]);
  });
});

describe("HTTPS required", () => {
  const config = { security: { requireHttps: true, trustedProxies: ["127.0.0.1"] } };

  it("refuses plain HTTP with 403 https_required before anything else, closing the connection", async () => {
    const g = await gateway(config);
    const res = await fetch(`${g.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    expect(res.status).toBe(403);
    expect(res.headers.get("connection")).toBe("close");
    expect((await json(res)).error.code).toBe("https_required");
    expect(res.headers.get("strict-transport-security")).toBeNull();
    expect(g.forwarded).toEqual([]);
    expect(g.refused).toEqual([
      expect.objectContaining({ code: "https_required", path: "/v1/chat/completions" }),
    ]);
  });

  it("still answers the probes over plain HTTP", async () => {
    const g = await gateway(config);
    expect((await fetch(`${g.url}/healthz`)).status).toBe(200);
  });

  it("forwards what a trusted proxy says came over HTTPS, marked secure, and answers with HSTS", async () => {
    const g = await gateway(config);
    const res = await fetch(`${g.url}/v1/models`, { headers: { "x-forwarded-proto": "https" } });
    expect(res.status).toBe(299);
    expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(g.forwarded).toEqual([expect.objectContaining({ url: "/v1/models", secure: true })]);
  });
});
