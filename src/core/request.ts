// One request on the public port, from its arrival to its settlement, as one object with one lifecycle: the
// request path creates it (proxy/pipeline.ts) and its stages fill it in (proxy/stages/), admission how it was
// let in (billing/request-billing.ts: from then on it is an AdmittedRequest, the type saying what is known),
// the exchange how it went (proxy/relay/exchange.ts), the charging policy what it cost (billing/settlement.ts), and
// the observer reads it for the log line and the metrics (observability/). What is written elsewhere is
// derived from it by one small pure function each: the settlement (billing/settlement.ts), the key's
// recent-requests entry (store/usage/request-log-store.ts), the log line (observability/log-line.ts). A request the
// gateway refuses itself, or that Node's HTTP parser refuses, is one too, with most fields left empty.
//
// Every field is set in the constructor, so that all requests share one shape (V8 keeps one hidden class, and
// the request path stays monomorphic); the groups below are in the order the request meets them.

import type { IncomingHttpHeaders } from "node:http";
import type { EndpointClass, UsageClass } from "./endpoint-classes.js";
import type { ErrorCode, ErrorFormat } from "./errors.js";
import type { KeyRef } from "./key-ref.js";
import type { Micros } from "./money.js";
import type { RecordOutcome } from "./outcome.js";
import type { ModelPrice } from "./price.js";
import type { RejectReason, UsageReport } from "./usage.js";

/** A body's first `limit` bytes as text. */
export type BodyText = (limit: number) => string;

/** The request's and the response's bodies, when the key's log_bodies allowed capturing them. */
export interface RequestBodies {
  request: BodyText;
  response: BodyText;
}

/** What a shutdown drain's end aborts: a forwarded request's exchange (proxy/relay/exchange.ts). */
export interface Abortable {
  abortForShutdown(): void;
}

/**
 * The part of a replica's admission lease a request holds (billing/leases.ts), as its settlement names it to the
 * settle script. `share` is read when the settlement is sent: 0 once the lease has been given up.
 */
export interface LeaseHold {
  readonly leaseId: string;
  /** What the request took from the lease (µ₽). */
  readonly hold: Micros;
  /** The settlement's own marker (exactly-once), unique within the replica. */
  readonly marker: string;
  /** The share of what is free the hold may go back into the lease with; 0 when the lease is given up. */
  readonly share: number;
}

/** What to take out of a stream the gateway asked for usage (see proxy/meters/sse-meter.ts). */
export interface StripMode {
  /** The upstream reports usage on every chunk (continuous_usage_stats), not only on the last. */
  everyChunk: boolean;
}

/**
 * The request's trace while tracing is on (observability/otel/request-trace.ts makes it; null on every request
 * while tracing is off). Its spans are made from the request's own times when it ends, but for the span of the
 * exchange with the model server, which must exist before forwarding so that the model server's spans can name
 * it as their parent.
 */
export interface RequestTrace {
  /** The trace's id (32 hex digits): the client's, when it sent a traceparent, else a new one. */
  readonly traceId: string;
  /** The id of the gateway's span of the request (16 hex digits). */
  readonly spanId: string;
  /** Whether the trace is recorded and exported (the sampler's decision). */
  readonly sampled: boolean;
  /**
   * The exchange with the model server begins (`at`, performance.now()): its span starts, and the headers to
   * send upstream name it in traceparent (and carry the client's tracestate on).
   */
  forwarding(headers: IncomingHttpHeaders, at: number): void;
}

/** How a request was let in: on the replica's admission lease, or by a reservation of its own. */
export type Admission = "lease" | "reserve";

const NO_USAGE: UsageReport = Object.freeze({});

export class GatewayRequest {
  // The listener. requestId, method and path are null only for a request Node's parser refused.

  readonly requestId: string | null;
  readonly method: string | null;
  readonly path: string | null;
  /** When the request arrived (performance.now(), ms). */
  readonly arrivedAt: number;
  /** Its trace, while tracing is on (observability/otel/); null otherwise. */
  trace: RequestTrace | null = null;

  // The path's stages (proxy/stages/): the key, what the request asks for, and how it is forwarded.

  /** The key of the credential, once authenticated. */
  ref: KeyRef | null = null;
  /** When the credential was resolved to its key (performance.now(), ms; 0 until then). */
  authenticatedAt = 0;
  /** Whether resolving it waited for Redis (the key was not in the process' cache). */
  keyLookedUp = false;
  /** The key's name, known once the request is admitted. */
  keyName: string | null = null;
  model: string | null = null;
  endpointClass: EndpointClass | null = null;
  /** How the request's usage is metered; null for a free request, which is never charged. */
  usageClass: UsageClass | null = null;
  price: ModelPrice | null = null;
  errorFormat: ErrorFormat = "openai";
  /** Prompt tokens implied by the request, should the upstream report none. */
  promptEstimate = 0;
  /** The most completion tokens a credible report may claim (cap × choices; null when unknown). */
  maxCompletionTokens: number | null = null;
  /** The most prompt tokens a credible report may claim. */
  maxPromptTokens = 0;

  // Admission (billing/request-billing.ts).

  admission: Admission | null = null;
  /** When admission began (the body read, its worst case known) and ended (performance.now(), ms; 0 until). */
  admittingAt = 0;
  admittedAt = 0;
  /** The reservation's id; also named by the settlement of a request admitted on a lease. */
  reservationId: string | null = null;
  /** What was reserved (µ₽; 0 for a free request). */
  reserved: Micros = 0;
  /** When the reservation was made (wall clock, ms): the reservation keeper extends it from then. */
  reservedAt = 0;
  /** Admitted on the replica's admission lease: what it holds of it. */
  leaseHold: LeaseHold | null = null;
  /** Whether the key logs bodies (log_bodies). */
  logBodies = false;
  /** The key's max_parallel, for the per-key in-flight gauge (null without one). */
  maxParallel: number | null = null;

  // The wait for a place at the model server (proxy/sharing/upstream-gate.ts), only where upstream.maxInFlight is set.

  /** When it asked for a place at the model server (performance.now(), ms); 0 where there is no limit. */
  queuedAt = 0;
  /**
   * When it stopped waiting (performance.now(), ms): given a place — at once, or after waiting its turn in the
   * fair queue — or taken out of the queue (its client left, its wait ran out, a shutdown); 0 until then.
   */
  dequeuedAt = 0;
  /** It holds one of the model server's places (upstream.maxInFlight), given back when it ends. */
  holdsSlot = false;

  // The exchange (proxy/relay/exchange.ts).

  /**
   * The exchange while it runs, from the moment the request is admitted (its wait in the fair queue included):
   * aborted at the end of a shutdown drain, its reservation kept alive.
   */
  exchange: Abortable | null = null;
  forwardedAt = 0;
  /** When the model server's answer began: its status line and headers (performance.now(), ms). */
  firstByteAt = 0;
  /** When the first bytes of its body came (a stream's first event, near enough its first token). */
  firstChunkAt = 0;
  /** The upstream's status; 0 while (or when) it has not answered. */
  upstreamStatus = 0;
  /** The status the client received (499 when it went away before a response started). */
  status = 0;
  outcome: RecordOutcome = "completed";
  /** The error table's code the gateway answered with itself (a refusal, a 502 or 504), else null. */
  code: ErrorCode | null = null;
  /** The usage the upstream reported, as the meter read it (unchecked). */
  usage: UsageReport = NO_USAGE;
  /** Bytes of the response, as received. */
  responseBytes = 0;
  /** Events of a streamed response (SSE data events, NDJSON lines); null for other responses. */
  events: number | null = null;
  /** Whether there was a response to meter. */
  metered = false;
  bodies: RequestBodies | null = null;

  // The charge (billing/settlement.ts).

  promptTokens = 0;
  completionTokens = 0;
  /** Of promptTokens, those the model server served from its cache (charged at cachedInput). */
  cachedTokens = 0;
  /** Of promptTokens, those it wrote to its cache (charged at cacheWrite; Anthropic-style reports only). */
  cacheWriteTokens = 0;
  cost: Micros = 0;
  /** Whether any count was estimated rather than reported. */
  estimated = false;
  /** Why the upstream's report was not believed, when it was not. */
  usageRejected: RejectReason | null = null;
  /** What a credible report cost beyond the reservation (µ₽). */
  overage: Micros = 0;

  // The end.

  /** Wall-clock time the request ended (ms). */
  endedAt = 0;
  latencyMs = 0;
  upstreamTtfbMs: number | null = null;
  /** Time from arrival to forwarding (or to the refusal), less the wait in the fair queue. */
  gatewayMs = 0;

  constructor(requestId: string | null, method: string | null, path: string | null, arrivedAt: number) {
    this.requestId = requestId;
    this.method = method;
    this.path = path;
    this.arrivedAt = arrivedAt;
  }

  get accountId(): string | null {
    return this.ref === null ? null : this.ref.accountId;
  }

  get keyId(): string | null {
    return this.ref === null ? null : this.ref.keyId;
  }

  /** How long it waited in the fair queue for a place at the model server (ms); 0 if it never waited. */
  get queueMs(): number {
    return this.dequeuedAt > this.queuedAt && this.queuedAt > 0 ? this.dequeuedAt - this.queuedAt : 0;
  }

  /**
   * The request is over, forwarded or not: its times, from the wall clock (`endedAt`) and the monotonic one
   * (`at`, performance.now()).
   */
  end(endedAt: number, at: number): void {
    this.endedAt = endedAt;
    this.latencyMs = at - this.arrivedAt;
    this.upstreamTtfbMs = this.firstByteAt > 0 ? this.firstByteAt - this.forwardedAt : null;
    // What the gateway itself adds: the wait for the model server is the queue's, reported as queueMs.
    this.gatewayMs = (this.forwardedAt || at) - this.arrivedAt - this.queueMs;
  }

  /** The gateway answered with an error of its table instead of forwarding the request (or any further). */
  refuse(refusal: { status: number; code: ErrorCode }, endedAt: number, at: number): void {
    this.status = refusal.status;
    this.outcome = "refused";
    this.code = refusal.code;
    this.endedAt = endedAt;
    this.gatewayMs = at - this.arrivedAt;
    this.latencyMs = this.gatewayMs;
  }
}

/**
 * A request billing has reserved for, or tried to (a reservation whose reply was lost may hold something): its
 * key and its reservation are named, so that a settlement — a release at least — can be sent for it.
 */
export interface ReservedRequest extends GatewayRequest {
  readonly ref: KeyRef;
  readonly reservationId: string;
}

/** A request billing has admitted (billing/request-billing.ts): priced, and its worst case held. */
export interface AdmittedRequest extends ReservedRequest {
  readonly price: ModelPrice;
}
