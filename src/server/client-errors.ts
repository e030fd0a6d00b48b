// Requests Node's HTTP parser refuses before any handler sees them (the server's `clientError` event): a
// header section over Node's limit (16 KiB by default), a chunk extension over its limit, bytes that are not
// HTTP. Node would answer with a bare status and log nothing; here the client gets the error table's JSON
// body and the refusal is logged and counted like any other. The request line and headers are never logged:
// they hold the client's key, and the path may hold secrets in its query.

import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { type ErrorCode, errorBody, GatewayError } from "../core/errors.js";
import { GatewayRequest } from "../core/request.js";
import type { RequestObserver } from "../observability/observer.js";

/** The table's code for each parser error Node reports; other parser errors are malformed requests. */
const REFUSALS: Record<string, { code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    code: "headers_too_large",
    message: "The request's headers are too large. Send smaller headers (cookies, long tokens).",
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    code: "payload_too_large",
    message: "The request's chunk extensions are too large.",
  },
};
const MALFORMED = { code: "invalid_request", message: "The request is not valid HTTP/1.1." } as const;
/**
 * How long the connection stays open after the answer. Closing it at once with the client's bytes still
 * unread would reset it, and the client could lose the answer; it is closed anyway after this long.
 */
const LINGER_MS = 2000;

export function answerClientErrors(
  observer: Pick<RequestObserver, "refused">,
  now: () => number,
): (error: NodeJS.ErrnoException, socket: Socket) => void {
  return (error, socket) => {
    // A client that went away, or one that sent nothing in time (headersTimeout), is not reading an answer.
    if (
      error.code === "ECONNRESET" ||
      error.code === "ERR_HTTP_REQUEST_TIMEOUT" ||
      !socket.writable ||
      socket.bytesWritten > 0
    ) {
      socket.destroy();
      return;
    }
    const { code, message } = REFUSALS[error.code ?? ""] ?? MALFORMED;
    const refusal = new GatewayError(code, message);
    const body = errorBody(refusal);
    socket.end(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
        "Content-Type: application/json; charset=utf-8\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        "Cache-Control: no-store\r\n" +
        "Connection: close\r\n\r\n" +
        body,
    );
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
    // No request id, method or path: the request could not be read (and its line may hold secrets). Its
    // arrival is unknown: the time the gateway spent on it is taken as none.
    const at = performance.now();
    const request = new GatewayRequest(null, null, null, at);
    request.refuse(refusal, now(), at);
    observer.refused(request);
  };
}
