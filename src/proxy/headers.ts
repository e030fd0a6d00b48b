// Header hygiene in both directions. Upstream: hop-by-hop headers and every credential the caller sent are
// dropped (the caller's key must never reach the model server), the configured upstream key is set instead,
// and X-Forwarded-* and X-Request-Id are added. Downstream: hop-by-hop headers are dropped and the gateway's
// own X-Request-Id wins.

import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from "node:http";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Headers that carry client credentials in the APIs clients speak (OpenAI, Anthropic, Azure). */
const CREDENTIALS = ["authorization", "x-api-key", "api-key"];

export interface UpstreamHeaderOptions {
  requestId: string;
  /** The key the caller authenticated with: any header still carrying it is dropped. */
  callerToken: string;
  /** Bearer token for the upstream, if one is configured. */
  upstreamAuthorization: string | undefined;
  /** Body length to declare (the body may have been rewritten). */
  bodyLength: number;
  /** Ask the upstream not to compress, because the gateway will rewrite the response. */
  identityEncoding: boolean;
  /** "http" or "https": how the request reached the gateway. */
  protocol: string;
}

/** Rewrites `req.headers` in place into the headers sent upstream (http-proxy-3 copies them from there). */
export function prepareUpstreamHeaders(req: IncomingMessage, options: UpstreamHeaderOptions): void {
  const headers = req.headers;
  dropHopByHop(headers);
  for (const name of CREDENTIALS) if (headers[name] !== undefined) delete headers[name];
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (
      typeof value === "string"
        ? value.includes(options.callerToken)
        : value?.some((v) => v.includes(options.callerToken))
    ) {
      delete headers[name];
    }
  }
  if (options.upstreamAuthorization) headers.authorization = options.upstreamAuthorization;

  const peer = req.socket.remoteAddress ?? "";
  const forwardedFor = headers["x-forwarded-for"];
  headers["x-forwarded-for"] = forwardedFor ? `${forwardedFor}, ${peer}` : peer;
  headers["x-forwarded-proto"] = options.protocol;
  if (headers.host !== undefined) headers["x-forwarded-host"] = headers.host;
  headers["x-request-id"] = options.requestId;

  if (options.bodyLength > 0 || headers["content-length"] !== undefined) {
    headers["content-length"] = String(options.bodyLength);
  }
  if (options.identityEncoding) headers["accept-encoding"] = "identity";
}

/** The upstream's response headers as sent to the client. */
export function clientResponseHeaders(
  upstream: IncomingHttpHeaders,
  rewritten: boolean,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { ...upstream };
  dropHopByHop(headers);
  delete headers["x-request-id"];
  if (rewritten) delete headers["content-length"];
  return headers;
}

function dropHopByHop(headers: IncomingHttpHeaders | OutgoingHttpHeaders): void {
  const connection = headers.connection;
  if (typeof connection === "string") {
    for (const name of connection.split(",")) delete headers[name.trim().toLowerCase()];
  }
  // `delete` turns a V8 object into a slow dictionary; only pay for it when the header is there.
  for (const name of HOP_BY_HOP) if (headers[name] !== undefined) delete headers[name];
}
