// The OTLP/HTTP sink of `npm run bench`'s "OpenTelemetry on" gateway: accepts /v1/traces and /v1/metrics as a
// Collector does and throws them away, so that the gateway's export costs what it would against a real one.

import { createServer } from "node:http";

const port = Number(process.argv[2]);
createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
}).listen(port, "127.0.0.1", () => process.send?.("ready"));
