// The contract between the core relay (exchange.ts) and the concerns composed around it, after undici's
// dispatch handlers (lib/handler/decorator-handler.js): the upstream's answer goes through a chain of handlers,
// each of which sees the response start, its data and its end, does its one thing and hands on to the next; the
// last one is the exchange itself, which writes to the client. A concern is a Decorator (a class, not a bundle
// of closures: one object per request per active concern) and compose.ts decides once per request which ones
// it needs. Unlike undici's, the contract has no controller for pause and resume: backpressure is the core's,
// which pauses the upstream when the client's buffer is full whichever handler wrote to it.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { AdmittedRequest } from "../../core/request.js";

export interface RelayHandler {
  /**
   * The upstream answered. `headers` are those the client is to get (hop-by-hop ones already dropped): a
   * handler may add to them, or hand on a copy; `upstream` are the upstream's own, to read.
   */
  onResponseStart(status: number, headers: OutgoingHttpHeaders, upstream: IncomingHttpHeaders): void;
  /** A chunk of the body, as the handler before this one hands it on. */
  onResponseData(chunk: Buffer): void;
  /** The body is complete. */
  onResponseEnd(): void;
  /** The answer was cut off (the client left, the upstream reset, a shutdown): stop, keep what was read. */
  onResponseAbort(): void;
  /**
   * The request is ending: write what this concern learned on it. A promise when that has to wait (the meter
   * decompressing its copy); the exchange ends the request once every handler's is done.
   */
  onFinish(request: AdmittedRequest): Promise<void> | undefined;
}

/** A concern composed around the next handler: by default it hands everything on unchanged. */
export class Decorator implements RelayHandler {
  constructor(protected readonly next: RelayHandler) {}

  onResponseStart(status: number, headers: OutgoingHttpHeaders, upstream: IncomingHttpHeaders): void {
    this.next.onResponseStart(status, headers, upstream);
  }

  onResponseData(chunk: Buffer): void {
    this.next.onResponseData(chunk);
  }

  onResponseEnd(): void {
    this.next.onResponseEnd();
  }

  onResponseAbort(): void {
    this.next.onResponseAbort();
  }

  onFinish(request: AdmittedRequest): Promise<void> | undefined {
    return this.next.onFinish(request);
  }
}

/** What a handler that sends several pieces for one chunk uses to have them leave in one write. */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

/** Hands `pieces` on to `next`, in one write to the socket when there are several. */
export function handOn(next: RelayHandler, pieces: readonly Buffer[], socket: Corkable): void {
  if (pieces.length === 1) {
    next.onResponseData(pieces[0] as Buffer);
    return;
  }
  if (pieces.length === 0) return;
  socket.cork();
  for (const piece of pieces) next.onResponseData(piece);
  socket.uncork();
}
