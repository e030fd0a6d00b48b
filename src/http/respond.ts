// Writing JSON answers and errors on the public and admin listeners.

import type { ServerResponse } from "node:http";
import { type ErrorFormat, errorBody, type GatewayError, RETRY_AFTER_SECONDS } from "../core/errors.js";

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(text);
}

/**
 * Writes a CSV download: UTF-8 with a byte order mark, which spreadsheets need to read Cyrillic names right
 * (and CSV readers skip), named `filename` (ASCII: ids and dates only).
 */
export function sendCsv(res: ServerResponse, status: number, text: string, filename: string): void {
  const body = `\uFEFF${text}`;
  res.writeHead(status, {
    "content-type": "text/csv; charset=utf-8; header=present",
    "content-length": Buffer.byteLength(body),
    "content-disposition": `attachment; filename="${filename.replace(/[^\w.-]/g, "_")}"`,
    "cache-control": "no-store",
  });
  res.end(body);
}

export interface ErrorOptions {
  /** The Allow header of a 405. */
  allow?: string;
  format?: ErrorFormat;
}

/**
 * Writes an error of the table: WWW-Authenticate on 401, Allow on 405, Retry-After on 503 and on a rate
 * limit (in whole seconds, at least 1; with retry-after-ms too, which OpenAI's SDKs read first).
 */
export function sendError(res: ServerResponse, error: GatewayError, options: ErrorOptions = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = errorBody(error, options.format);
  const headers: Record<string, string | number> = {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  };
  if (error.status === 401) headers["www-authenticate"] = 'Bearer realm="tunnel-gateway"';
  if (error.retryAfterMs !== undefined) {
    headers["retry-after"] = String(Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
    headers["retry-after-ms"] = String(Math.max(1, Math.ceil(error.retryAfterMs)));
  } else if (error.status === 503) {
    headers["retry-after"] = String(RETRY_AFTER_SECONDS);
  }
  if (options.allow) headers.allow = options.allow;
  res.writeHead(error.status, headers);
  res.end(text);
}

const ANTHROPIC_PATH = /^\/+v1\/+messages(?:[/?]|$)/i;

/**
 * Anthropic's clients (its SDKs, Claude Code) call /v1/messages and read Anthropic's error shape; every
 * other path answers in OpenAI's.
 */
export function errorFormatOf(path: string): ErrorFormat {
  return ANTHROPIC_PATH.test(path) ? "anthropic" : "openai";
}
