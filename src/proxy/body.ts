// Reads a request body into memory, refusing more than the configured limit — from Content-Length before
// reading a byte when the client declares it, otherwise as soon as the running total passes the limit.

import type { IncomingMessage } from "node:http";
import { GatewayError } from "../errors.js";

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
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // Stop buffering, but let the rest drain so that the 413 can still reach the client.
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      if (!req.complete) onError(new Error("client closed the connection while sending the body"));
    };
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}
