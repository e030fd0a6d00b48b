// The benchmark's baseline: a bare http-proxy-3 pass-through that, like the gateway, reads and parses the
// request body before forwarding it (an authenticating gateway must, to find the model) — everything the
// gateway does minus authentication, billing and metering.

import { Agent, createServer } from "node:http";
import { Readable } from "node:stream";
import { createProxyServer } from "http-proxy-3";
import { readRequestBody } from "../src/demo/demo-upstream.js";

const [port, target] = [Number(process.argv[2]), process.argv[3] as string];
// Pooled connections as the gateway keeps them (upstream.keepAliveIdleMs): closed after 4 s idle, before the
// model server's 5 s keep-alive timeout can close one under a request and turn it into a 502.
const proxy = createProxyServer({
  target,
  agent: new Agent({ keepAlive: true, scheduling: "lifo", timeout: 4000 }),
});

createServer(async (req, res) => {
  const body = await readRequestBody(req);
  try {
    JSON.parse(body.toString("utf8"));
  } catch {
    // Forwarded all the same: the baseline only pays for the parse.
  }
  proxy.web(req, res, { buffer: Readable.from([body]) }, () => {
    res.writeHead(502);
    res.end();
  });
}).listen(port, "127.0.0.1", () => process.send?.("ready"));
