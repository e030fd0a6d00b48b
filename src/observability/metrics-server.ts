// The Prometheus endpoint, on a listener of its own (metrics.host:metrics.port, bound by gateway.ts), never
// on the public port. With metrics.token set, a scrape must send it as a Bearer token.

import { timingSafeEqual } from "node:crypto";
import type { RequestListener } from "node:http";
import type { Registry } from "prom-client";
import { bearerToken } from "../auth/authenticator.js";
import { pathOf } from "../http/url-path.js";

export function metricsHandler(registry: Registry, options: { token?: string | undefined }): RequestListener {
  const expected = options.token === undefined ? null : Buffer.from(options.token);
  return (req, res) => {
    if (pathOf(req.url) !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found: metrics are at GET /metrics\n");
      return;
    }
    if (expected && !tokenMatches(req.headers.authorization, expected)) {
      res.writeHead(401, { "content-type": "text/plain", "www-authenticate": 'Bearer realm="metrics"' });
      res.end("a metrics token is required: send it as Authorization: Bearer <metrics.token>\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
      (error: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(`${error.message}\n`),
    );
  };
}

function tokenMatches(authorization: string | undefined, expected: Buffer): boolean {
  let given: Buffer;
  try {
    given = Buffer.from(bearerToken(authorization));
  } catch {
    return false;
  }
  return given.length === expected.length && timingSafeEqual(given, expected);
}
