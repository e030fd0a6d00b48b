// Metering, and strip mode, as one handler: every answer goes through it, and the request's usage, event count
// and response size come from it (meters/response-meter.ts). It reads along — the client gets each chunk first,
// the meter reads it after — unless the gateway asked the upstream for usage the client did not ask for, in
// which case it rewrites the stream, taking out what the client did not ask for (strip mode).
//
// Strip mode is not a handler of its own because it is not a second reading of the stream: the SSE meter that
// finds the usage is the one that knows where the events it takes out begin and end. Split in two, the stream
// would be parsed twice, or the meter would hand its parse to the stripper through a side door. Whether it
// strips is known only once the upstream's headers are (an SSE answer, not compressed), so it is decided at the
// response's start, by the same ResponseMeter.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { AdmittedRequest, StripMode } from "../../core/request.js";
import { type MeterLimits, ResponseMeter } from "../meters/response-meter.js";
import { withoutContentLength } from "./headers.js";
import { type Corkable, Decorator, handOn, type RelayHandler } from "./relay-handler.js";

export class Metering extends Decorator {
  private meter: ResponseMeter | null = null;

  constructor(
    next: RelayHandler,
    /** What to take out of a stream the gateway asked for usage; null when it did not ask. */
    private readonly strip: StripMode | null,
    private readonly limits: MeterLimits,
    private readonly socket: Corkable,
  ) {
    super(next);
  }

  override onResponseStart(
    status: number,
    headers: OutgoingHttpHeaders,
    upstream: IncomingHttpHeaders,
  ): void {
    const meter = new ResponseMeter(upstream, this.strip, this.limits);
    this.meter = meter;
    // A rewritten stream is no longer as long as the upstream said.
    this.next.onResponseStart(status, meter.stripping ? withoutContentLength(headers) : headers, upstream);
  }

  override onResponseData(chunk: Buffer): void {
    const meter = this.meter as ResponseMeter;
    if (meter.stripping) {
      const out = meter.push(chunk);
      if (Array.isArray(out)) handOn(this.next, out, this.socket);
      else this.next.onResponseData(out);
    } else {
      this.next.onResponseData(chunk);
      meter.push(chunk);
    }
  }

  override onResponseEnd(): void {
    // What a stripping meter still held back (the end of the stream) leaves with the end, in one write.
    const tail = (this.meter as ResponseMeter).end();
    if (tail.length === 0) {
      this.next.onResponseEnd();
      return;
    }
    this.socket.cork();
    this.next.onResponseData(tail.length === 1 ? (tail[0] as Buffer) : Buffer.concat(tail));
    this.next.onResponseEnd();
    this.socket.uncork();
  }

  override onResponseAbort(): void {
    // The meter keeps what it has read so far.
    this.meter?.abort();
    this.next.onResponseAbort();
  }

  override onFinish(request: AdmittedRequest): Promise<void> | undefined {
    const rest = this.next.onFinish(request);
    // No answer came: nothing was metered (the request is charged by its estimate, or not at all).
    if (this.meter === null) return rest;
    return this.read(request, this.meter, rest);
  }

  private async read(
    request: AdmittedRequest,
    meter: ResponseMeter,
    rest: Promise<void> | undefined,
  ): Promise<void> {
    const result = await meter.result();
    request.metered = true;
    request.usage = result.usage;
    request.events = result.events;
    request.responseBytes = meter.bytes;
    if (rest !== undefined) await rest;
  }
}
