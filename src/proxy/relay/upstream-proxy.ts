// The connection to the model server: one http-proxy-3 server over a keep-alive agent, whose request and
// response events are handed to the Exchange the request belongs to.

import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { createProxyServer, type ProxyServer } from "http-proxy-3";
import type { Config } from "../../config/schema.js";
import { exchangeOf } from "./exchange-events.js";

export interface UpstreamProxy {
  proxy: ProxyServer;
  close(): void;
}

export function createUpstreamProxy(upstream: Config["upstream"]): UpstreamProxy {
  const target = new URL(upstream.url);
  // `timeout` closes a pooled connection once it has been idle that long; a connection in use is not cut
  // by it (Node only emits an event, which nothing here listens to: upstream.timeoutMs governs a request).
  const agentOptions = { keepAlive: true, scheduling: "lifo" as const, timeout: upstream.keepAliveIdleMs };
  const agent = target.protocol === "https:" ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const proxy = createProxyServer({
    target: upstream.url,
    agent,
    changeOrigin: true,
    selfHandleResponse: true,
    xfwd: false,
  });
  proxy.on("proxyReq", (proxyReq, req) => exchangeOf(req)?.onUpstreamRequest(proxyReq));
  proxy.on("proxyRes", (proxyRes, req) => exchangeOf(req)?.onUpstreamResponse(proxyRes));
  return {
    proxy,
    close() {
      proxy.close();
      agent.destroy();
    },
  };
}
