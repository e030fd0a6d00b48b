// The connection to the model server: requests go to the upstream's host (Host rewritten) without
// X-Forwarded-* of the proxy's own, over pooled keep-alive connections that close() destroys. Over real
// HTTP; the response is handed on by the test's own proxyRes listener, as an Exchange would.

import { once } from "node:events";
import type { IncomingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import { createUpstreamProxy, type UpstreamProxy } from "../../../src/proxy/relay/upstream-proxy.js";
import { type Listening, listen } from "../../helpers/http.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp() {
  const seen: { headers: IncomingHttpHeaders; socket: Socket }[] = [];
  const upstream: Listening = await listen((req, res) => {
    seen.push({ headers: req.headers, socket: req.socket });
    res.end(`upstream saw ${req.method} ${req.url}`);
  });
  cleanups.push(() => upstream.close());
  const config = configSchema.parse({ upstream: { url: upstream.url } });
  const proxy: UpstreamProxy = createUpstreamProxy(config.upstream);
  cleanups.push(() => proxy.close());
  proxy.proxy.on("proxyRes", (proxyRes, _req, res) => {
    res.writeHead(proxyRes.statusCode ?? 502, proxyRes.headers);
    proxyRes.pipe(res);
  });
  const gateway: Listening = await listen((req, res) => proxy.proxy.web(req, res));
  cleanups.push(() => gateway.close());
  return { seen, upstream, proxy, gateway };
}

describe("createUpstreamProxy", () => {
  it("forwards to the upstream under its own host name, adding no X-Forwarded-* of its own", async () => {
    const { seen, upstream, gateway } = await setUp();
    const res = await fetch(`${gateway.url}/v1/models?x=1`, { headers: { host: "gateway.example" } });
    expect(await res.text()).toBe("upstream saw GET /v1/models?x=1");
    expect(seen[0]?.headers.host).toBe(new URL(upstream.url).host);
    expect(Object.keys(seen[0]?.headers ?? {}).filter((name) => name.startsWith("x-forwarded"))).toEqual([]);
  });

  it("reuses one kept-alive connection for requests one after another, and close() ends it", async () => {
    const { seen, proxy, gateway } = await setUp();
    for (let i = 0; i < 3; i++) await (await fetch(`${gateway.url}/v1/models`)).text();
    expect(seen).toHaveLength(3);
    const socket = seen[0]!.socket;
    expect(seen.every((request) => request.socket === socket)).toBe(true);
    expect(socket.destroyed).toBe(false);
    const closed = once(socket, "close");
    proxy.close();
    await closed;
  });
});
