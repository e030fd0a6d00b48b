// The one look at the model server at start: GET /v1/models with the upstream key, said to answer with its
// status whatever it is, or not to answer with the cause; silent when the gateway closes meanwhile. Over
// real HTTP.

import type { IncomingHttpHeaders } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../src/demo/redis-server.js";
import { PROBE_USER_AGENT, probeUpstream } from "../../src/proxy/upstream-probe.js";
import { type Listening, listen } from "../helpers/http.js";
import { captureLogs } from "../helpers/logs.js";
import { waitUntil } from "../helpers/wait.js";

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("probeUpstream", () => {
  it("asks GET /v1/models as itself, with the upstream key, and says the server answers with its status", async () => {
    const seen: { method?: string; url?: string; headers: IncomingHttpHeaders }[] = [];
    server = await listen((req, res) => {
      seen.push({ method: req.method, url: req.url, headers: req.headers });
      res.writeHead(500).end("broken");
    });
    const { logger, lines } = captureLogs();
    await probeUpstream(
      { url: `${server.url}/`, apiKey: "upstream-secret" },
      logger,
      new AbortController().signal,
    );
    expect(seen).toEqual([
      {
        method: "GET",
        url: "/v1/models",
        headers: expect.objectContaining({
          "user-agent": PROBE_USER_AGENT,
          authorization: "Bearer upstream-secret",
        }),
      },
    ]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: "model server answers",
        upstream: `${server.url}/`,
        status: 500,
      }),
    ]);
  });

  it("sends no Authorization when no upstream key is set", async () => {
    const headers: IncomingHttpHeaders[] = [];
    server = await listen((req, res) => {
      headers.push(req.headers);
      res.end("{}");
    });
    await probeUpstream({ url: server.url }, captureLogs().logger, new AbortController().signal);
    expect(headers[0]).not.toHaveProperty("authorization");
  });

  it("warns, with the cause, when the model server does not answer", async () => {
    const port = await freePort();
    const { logger, lines } = captureLogs();
    await probeUpstream({ url: `http://127.0.0.1:${port}` }, logger, new AbortController().signal);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        upstream: `http://127.0.0.1:${port}`,
        err: `connect ECONNREFUSED 127.0.0.1:${port}`,
        msg: "model server does not answer GET /v1/models; requests will get 502 or 504 until it does",
      }),
    ]);
  });

  it("says nothing when the gateway closes before the model server answers", async () => {
    let asked = false;
    server = await listen(() => {
      asked = true;
    });
    const { logger, lines } = captureLogs();
    const closing = new AbortController();
    const probe = probeUpstream({ url: server.url }, logger, closing.signal);
    await waitUntil(() => asked, "the probe to arrive");
    closing.abort();
    await probe;
    expect(lines).toEqual([]);
  });
});
