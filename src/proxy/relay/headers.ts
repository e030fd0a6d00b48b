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

/**
 * Not hop-by-hop, but not forwarded either: the gateway has already read the whole body (answering the
 * client's 100-continue itself), and with Expect set http-proxy-3 never reports the upstream request, so
 * neither the upstream timeout nor the shutdown could stop it.
 */
const EXPECT = "expect";

/** Headers that carry client credentials in the APIs clients speak (OpenAI, Anthropic, Azure). */
const CREDENTIALS = new Set(["authorization", "x-api-key", "api-key"]);

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

/**
 * Replaces `req.headers` with the headers to send upstream (http-proxy-3 copies them from there). A new object
 * is built rather than properties deleted: `delete` would turn the object into a slow dictionary.
 */
export function prepareUpstreamHeaders(req: IncomingMessage, options: UpstreamHeaderOptions): void {
  const source = req.headers;
  const dropped = connectionListed(source.connection);
  const headers: IncomingHttpHeaders = {};
  for (const name in source) {
    if (HOP_BY_HOP.has(name) || CREDENTIALS.has(name) || name === EXPECT || dropped?.has(name)) continue;
    const value = source[name];
    if (
      typeof value === "string"
        ? value.includes(options.callerToken)
        : value?.some((v) => v.includes(options.callerToken))
    ) {
      continue;
    }
    headers[name] = value;
  }
  if (options.upstreamAuthorization) headers.authorization = options.upstreamAuthorization;

  const peer = req.socket.remoteAddress ?? "";
  // Read from the filtered headers: a value dropped above for carrying the caller's key stays dropped.
  const forwardedFor = headers["x-forwarded-for"];
  headers["x-forwarded-for"] = forwardedFor ? `${forwardedFor}, ${peer}` : peer;
  headers["x-forwarded-proto"] = options.protocol;
  if (headers.host !== undefined) headers["x-forwarded-host"] = headers.host;
  headers["x-request-id"] = options.requestId;

  if (options.bodyLength > 0 || source["content-length"] !== undefined) {
    headers["content-length"] = String(options.bodyLength);
  }
  if (options.identityEncoding) headers["accept-encoding"] = "identity";
  req.headers = headers;
}

/** The upstream's response headers as sent to the client. */
export function clientResponseHeaders(
  upstream: IncomingHttpHeaders,
  rewritten: boolean,
): OutgoingHttpHeaders {
  const dropped = connectionListed(upstream.connection);
  const headers: OutgoingHttpHeaders = {};
  for (const name in upstream) {
    if (HOP_BY_HOP.has(name) || name === "x-request-id" || dropped?.has(name)) continue;
    if (rewritten && name === "content-length") continue;
    headers[name] = upstream[name];
  }
  return headers;
}

/** Headers a Connection header names as hop-by-hop, if it names any beyond the standard ones. */
function connectionListed(connection: string | undefined): Set<string> | null {
  if (connection === undefined) return null;
  // Nearly every request and response says one of these, which name no header to drop but the standard
  // hop-by-hop one: no set to build for them.
  const value = connection.toLowerCase();
  if (value === "keep-alive" || value === "close") return null;
  return new Set(value.split(",").map((name) => name.trim()));
}

/**
 * The client's headers for a body the gateway rewrote (stripped, filtered): without the upstream's length. A
 * copy rather than a `delete`, which would turn the object into a slow dictionary; the same object when there
 * is no length to drop, as for nearly every stream.
 */
export function withoutContentLength(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  if (headers["content-length"] === undefined) return headers;
  const copy: OutgoingHttpHeaders = {};
  for (const name in headers) if (name !== "content-length") copy[name] = headers[name];
  return copy;
}
