// Writing JSON answers and errors on the public and admin listeners.

import type { ServerResponse } from "node:http";
import { errorBody, type GatewayError, RETRY_AFTER_SECONDS } from "../errors.js";

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(text);
}

/** Writes an error of the table: WWW-Authenticate on 401, Retry-After on 503, Allow on 405. */
export function sendError(res: ServerResponse, error: GatewayError, allow?: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = errorBody(error);
  const headers: Record<string, string | number> = {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  };
  if (error.status === 401) headers["www-authenticate"] = 'Bearer realm="tunnel-gateway"';
  if (error.status === 503) headers["retry-after"] = String(RETRY_AFTER_SECONDS);
  if (allow) headers.allow = allow;
  res.writeHead(error.status, headers);
  res.end(text);
}
