// A stand-in for the rest of a relay chain (the handlers after the one under test, and the exchange at its
// end): it records what reaches it, in order, so that a handler can be driven alone.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { AdmittedRequest } from "../../../src/core/request.js";
import type { Corkable, RelayHandler } from "../../../src/proxy/relay/relay-handler.js";

export class RecordingHandler implements RelayHandler {
  /** What reached it: "start 200", "data <text>", "end", "abort", "finish". */
  readonly events: string[] = [];
  headers: OutgoingHttpHeaders | null = null;
  upstream: IncomingHttpHeaders | null = null;
  /** What onFinish returns (the later handlers' pending work). */
  pending: Promise<void> | undefined = undefined;

  onResponseStart(status: number, headers: OutgoingHttpHeaders, upstream: IncomingHttpHeaders): void {
    this.events.push(`start ${status}`);
    this.headers = headers;
    this.upstream = upstream;
  }

  onResponseData(chunk: Buffer): void {
    this.events.push(`data ${chunk.toString("utf8")}`);
  }

  onResponseEnd(): void {
    this.events.push("end");
  }

  onResponseAbort(): void {
    this.events.push("abort");
  }

  onFinish(_request: AdmittedRequest): Promise<void> | undefined {
    this.events.push("finish");
    return this.pending;
  }

  /** The body as it reached the end of the chain. */
  body(): string {
    return this.events
      .filter((event) => event.startsWith("data "))
      .map((event) => event.slice(5))
      .join("");
  }
}

/** A socket that records corking into the recorder's events, to see which pieces leave in one write. */
export function recordingSocket(recorder: RecordingHandler): Corkable {
  return {
    cork: () => void recorder.events.push("cork"),
    uncork: () => void recorder.events.push("uncork"),
  };
}
