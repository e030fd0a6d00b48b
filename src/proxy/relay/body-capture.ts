// The request and response bodies of one request, kept for its log line (logging.bodies) and the key's
// recent-requests list (requestLog.maxBodyBytes) while the key's log_bodies allows it: captured up to the
// larger of the two limits, and cut to each limit once, when the request has finished. CapturingBodies is the
// relay handler (relay-handler.ts) that does it, composed only for a key that logs bodies: it sits next to the
// client, so what it keeps is what the client got (stripped, filtered).

import type { AdmittedRequest, BodyText, RequestBodies } from "../../core/request.js";
import { Decorator, type RelayHandler } from "./relay-handler.js";

export class BodyCapture {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    if (this.bytes >= this.limit || chunk.length === 0) return;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
  }

  /** The request body and the captured response, each as a function of the limit to cut it to. */
  bodies(request: Buffer): RequestBodies {
    return { request: bodyText(request), response: bodyText(Buffer.concat(this.chunks, this.bytes)) };
  }
}

export class CapturingBodies extends Decorator {
  private readonly capture: BodyCapture;

  constructor(
    next: RelayHandler,
    limit: number,
    /** The body as the client sent it. */
    private readonly received: Buffer,
  ) {
    super(next);
    this.capture = new BodyCapture(limit);
  }

  override onResponseData(chunk: Buffer): void {
    this.capture.add(chunk);
    this.next.onResponseData(chunk);
  }

  override onFinish(request: AdmittedRequest): Promise<void> | undefined {
    request.bodies = this.capture.bodies(this.received);
    return this.next.onFinish(request);
  }
}

/**
 * A body's first `limit` bytes as text (a multi-byte character cut in two becomes U+FFFD). A body shorter
 * than both limits, the usual case, is turned into text once.
 */
function bodyText(bytes: Buffer): BodyText {
  let whole: string | undefined;
  return (limit) => {
    if (bytes.length > limit) return bytes.subarray(0, limit).toString("utf8");
    whole ??= bytes.toString("utf8");
    return whole;
  };
}
