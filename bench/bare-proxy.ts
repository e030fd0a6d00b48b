// The benchmark's baseline: a bare http-proxy-3 pass-through that, like the gateway, reads the request
// body before forwarding it — everything the gateway does minus authentication, billing and metering.

import { Agent, createServer } from "node:http";
import { Readable } from "node:stream";
import { createProxyServer } from "http-proxy-3";
import { readRequestBody } from "../src/demo/demo-upstream.js";

const [port, target] = [Number(process.argv[2]), process.argv[3] as string];
const proxy = createProxyServer({ target, agent: new Agent({ keepAlive: true }) });

createServer(async (req, res) => {
  const body = await readRequestBody(req);
  proxy.web(req, res, { buffer: Readable.from([body]) }, () => {
    res.writeHead(502);
    res.end();
  });
}).listen(port, "127.0.0.1", () => process.send?.("ready"));
