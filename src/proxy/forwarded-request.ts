// A request as the forwarder hands it to its Exchange — what it determined before forwarding — and how it
// ended, as the exchange hands it to request-end.ts.

import type { OutgoingHttpHeaders } from "node:http";
import type { LeaseAdmission } from "../billing/leases.js";
import type { EndpointClass, UsageClass } from "../core/endpoint-classes.js";
import type { ErrorCode, ErrorFormat } from "../core/errors.js";
import type { KeyRef } from "../core/key-ref.js";
import type { Micros } from "../core/money.js";
import type { Outcome } from "../core/outcome.js";
import type { ModelPrice } from "../core/price.js";
import type { BodyCapture } from "./body-capture.js";
import type { Tracked } from "./request-tracker.js";
import type { MeterResult } from "./response-meter.js";

/** What the forwarder determined about the request before forwarding it. */
export interface ForwardedRequest {
  requestId: string;
  arrivedAt: number;
  method: string;
  path: string;
  errorFormat: ErrorFormat;
  ref: KeyRef;
  keyName: string;
  logBodies: boolean;
  model: string | null;
  endpointClass: EndpointClass;
  /** How the request's usage is metered; null for a free request, which is never charged. */
  usageClass: UsageClass | null;
  price: ModelPrice;
  reservationId: string;
  /** Admitted on the replica's admission lease instead of a reservation of its own (null: reserved). */
  lease?: LeaseAdmission | null;
  /** What was reserved (0 for a free request). */
  reserved: Micros;
  /** The body as the client sent it (logged). */
  received: Buffer;
  /** The body as forwarded (with an output cap or stream_options added). */
  body: Buffer;
  /** What to take out of the stream because the gateway asked it for usage; null when it did not. */
  strip: { everyChunk: boolean } | null;
  /** Filter a model list down to these models. */
  filterModels: readonly string[] | null;
  /** Prompt tokens implied by the request, should the upstream report none. */
  promptEstimate: number;
  /** The most completion tokens a credible report may claim (cap × choices; null when unknown). */
  maxCompletionTokens: number | null;
  /** The most prompt tokens a credible report may claim. */
  maxPromptTokens: number;
  /** The key's rate-limit headers for the client's response, when it has per-minute limits. */
  rateLimitHeaders: OutgoingHttpHeaders | null;
  tracked: Tracked;
}

/** What happened, as request-end.ts weighs it. */
export interface Ending {
  outcome: Outcome;
  /** The upstream's status; 0 when it never answered. */
  upstreamStatus: number;
  /** The status the client received (499 when it went away before a response started). */
  status: number;
  /** The error table's code the gateway answered with itself (502, 504), else null. */
  code: ErrorCode | null;
  forwardedAt: number;
  firstByteAt: number;
  /** What the meter read, when there was a response to meter. */
  metered: { result: MeterResult; bytes: number } | null;
  capture: BodyCapture | null;
}
