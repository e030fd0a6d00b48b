// Reads a request body into memory, refusing more than the configured limit — from Content-Length before
// reading a byte when the client declares it, otherwise as soon as the running total passes the limit — and
// refusing a body that did not arrive whole: the connection closed or reset before its end, or a length
// other than the one Content-Length declared. Such a body is never forwarded, so it is never charged.

import type { IncomingMessage } from "node:http";
import { GatewayError } from "../core/errors.js";

export function tooLarge(limit: number): GatewayError {
  return new GatewayError(
    "payload_too_large",
    `The request body is larger than the gateway accepts (${limit} bytes).`,
  );
}

/** Throws payload_too_large when the declared Content-Length is over the limit. */
export function checkDeclaredLength(req: IncomingMessage, limit: number): void {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
}

/** The refusals notWhole made: their connection is closed after the answer, not kept for another request. */
const NOT_WHOLE = new WeakSet<Error>();

/** The refusal of a body that did not arrive whole (`received` bytes of it did). */
export function notWhole(req: IncomingMessage, received: number, what: string): GatewayError {
  const declared = req.headers?.["content-length"];
  const of = declared === undefined ? "" : ` of the ${declared} its Content-Length declares`;
  const error = new GatewayError(
    "invalid_request",
    `The request body was not received whole: ${what} after ${received} bytes${of}. A body not read whole is never forwarded.`,
  );
  NOT_WHOLE.add(error);
  return error;
}

/** Whether an error is the refusal of a body that did not arrive whole. */
export function isNotWhole(error: Error): boolean {
  return NOT_WHOLE.has(error);
}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  // A client that left while its key was being looked up: its request is destroyed and will emit nothing
  // more, so waiting for its events would wait forever.
  if (req.destroyed) return Promise.reject(notWhole(req, 0, "the connection closed"));
  return new Promise((resolve, reject) => {
    (req as Reading)[READER] = { chunks: [], size: 0, limit, resolve, reject };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

// The listeners are module-level functions that find the body being read on the request (their `this`):
// reading a body costs one small object per request, not a closure per listener.
const READER = Symbol("body being read");

interface BodyReader {
  chunks: Buffer[];
  size: number;
  limit: number;
  resolve: (body: Buffer) => void;
  reject: (error: Error) => void;
}

type Reading = IncomingMessage & { [READER]?: BodyReader | undefined };

function onData(this: Reading, chunk: Buffer): void {
  const reader = this[READER] as BodyReader;
  reader.size += chunk.length;
  if (reader.size > reader.limit) {
    stopReading(this);
    // Stop buffering, but let the rest drain so that the 413 can still reach the client.
    this.resume();
    reader.reject(tooLarge(reader.limit));
    return;
  }
  reader.chunks.push(chunk);
}

function onEnd(this: Reading): void {
  const { chunks, size, resolve, reject } = stopReading(this);
  // Node's parser reads exactly the declared length; a mismatch here means a body it did not frame, which
  // is refused rather than trusted.
  const declared = this.headers["content-length"];
  if (declared !== undefined && Number(declared) !== size) {
    reject(notWhole(this, size, "its length differs from the declared one"));
    return;
  }
  resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
}

function onError(this: Reading): void {
  const reader = stopReading(this);
  reader.reject(notWhole(this, reader.size, "the connection failed"));
}

function onClose(this: Reading): void {
  if (this.complete) return;
  const reader = stopReading(this);
  reader.reject(notWhole(this, reader.size, "the connection closed"));
}

/** Removes the listeners and the reader from the request; returns the reader. */
function stopReading(req: Reading): BodyReader {
  const reader = req[READER] as BodyReader;
  req[READER] = undefined;
  req.off("data", onData);
  req.off("end", onEnd);
  req.off("error", onError);
  req.off("close", onClose);
  return reader;
}
