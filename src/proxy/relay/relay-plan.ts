// What an exchange is given (exchange.ts): the plan the send stage makes for each request (stages/send.ts),
// from which compose.ts picks the concerns its answer goes through, and what every exchange shares.

import type { OutgoingHttpHeaders } from "node:http";
import type { Logger } from "pino";
import type { AdmittedRequest, StripMode } from "../../core/request.js";
import type { MeterLimits } from "../meters/response-meter.js";

/** The exchange's place on the path (pipeline.ts's PATH): between `send` and the ending's stages. */
export const RELAY = {
  name: "relay",
  does: "streams the answer back (backpressure, timeouts, 502/504) through its concerns; the meter reads its usage",
} as const;

/** What the send stage decided for one exchange (stages/send.ts). */
export interface RelayPlan {
  /** The body as forwarded (with an output cap, stream_options or a priority written in). */
  readonly forwarded: Buffer;
  /** The body as the client sent it (for the logs, when the key logs bodies). */
  readonly received: Buffer;
  /** What to take out of the stream because the gateway asked it for usage; null when it did not. */
  readonly strip: StripMode | null;
  /** Filter a model list down to these models (GET /v1/models of a key with a model list). */
  readonly filterModels: readonly string[] | null;
  /** The key's rate-limit headers for the client's response, when it has per-minute limits. */
  readonly rateLimitHeaders: OutgoingHttpHeaders | null;
}

/** What every exchange is given: built once by the pipeline, shared by all of them. */
export interface ExchangeDeps {
  /** upstream.timeoutMs: how long the upstream has to begin its answer. */
  timeoutMs: number;
  metering: MeterLimits;
  /** How much of the bodies to capture for a key that logs them (the larger of the two logs' limits). */
  captureBytes: number;
  logger: Logger;
  /** The request is over, whatever way: settle it and report it (request-end.ts). */
  end(request: AdmittedRequest): void;
}
