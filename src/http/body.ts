// Reads a request body into memory, refusing more than the configured limit — from Content-Length before
// reading a byte when the client declares it, otherwise as soon as the running total passes the limit.

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

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  // A client that left while its key was being looked up: its request is destroyed and will emit nothing
  // more, so waiting for its events would wait forever.
  if (req.destroyed)
    return Promise.reject(new Error("client closed the connection before its body was read"));
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
  const { chunks, size, resolve } = stopReading(this);
  resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
}

function onError(this: Reading, error: Error): void {
  stopReading(this).reject(error);
}

function onClose(this: Reading): void {
  if (!this.complete)
    stopReading(this).reject(new Error("client closed the connection while sending the body"));
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
