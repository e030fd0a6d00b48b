// What the listeners answer while the gateway starts: the probes as the running gateway answers them, 503
// for everything else, until the switch to the running handler — after which the starting one answers
// nothing. Over real HTTP.

import type { RequestListener } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import {
  serveWhileStarting,
  startingAdminHandler,
  startingPublicHandler,
} from "../../src/server/starting.js";
import { json, type Listening, listen } from "../helpers/http.js";

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
});

const running: RequestListener = (req, res) => res.writeHead(200).end(`running ${req.url}`);

describe("startingPublicHandler", () => {
  it("lets the probes through to the running handler, with or without a query", async () => {
    server = await listen(startingPublicHandler(running));
    for (const path of ["/healthz", "/readyz", "/readyz?verbose=1"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(`running ${path}`);
    }
  });

  it("answers everything else with 503 service_unavailable and Retry-After", async () => {
    server = await listen(startingPublicHandler(running));
    for (const path of ["/v1/chat/completions", "/v1/key", "/healthz/x", "/"]) {
      const res = await fetch(`${server.url}${path}`, { method: "POST", body: "{}" });
      expect(res.status, path).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect((await json(res)).error).toMatchObject({
        code: "service_unavailable",
        message: "The gateway is starting: its database is not connected and checked yet. Retry shortly.",
      });
    }
  });
});

describe("startingAdminHandler", () => {
  it("answers every admin request with 503", async () => {
    server = await listen(startingAdminHandler());
    for (const path of ["/admin/v1/me", "/", "/healthz"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(503);
      await res.arrayBuffer();
    }
  });
});

describe("serveWhileStarting", () => {
  it("serves the starting handler until switched, then the running one alone", async () => {
    server = await listen(() => {});
    server.server.removeAllListeners("request");
    const open = serveWhileStarting(server.server, startingAdminHandler(), running);
    expect((await fetch(`${server.url}/x`)).status).toBe(503);
    open();
    expect(server.server.listenerCount("request")).toBe(1);
    const res = await fetch(`${server.url}/x`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("running /x");
  });
});
