// A request's trace: the gateway's span of the request (SERVER, with the settlement's figures), a span for each
// of its steps that waited — authentication, admission, waiting in a queue, the exchange with the model server
// (CLIENT, with the GenAI attributes) — and the W3C trace context it takes from the client and passes to the
// model server.
//
// Only two spans are made while the request runs: the request's, when it arrives, and the exchange's, just
// before it is forwarded, since the traceparent the model server receives must name it. Every other span is
// made when the request ends, from the times the request path wrote on the request anyway (core/request.ts),
// with explicit start and end times: no span object is kept open across the request's steps. Attributes are
// the request's facts, never a key, a token or a body.
//
// So that tracing every request stays affordable, a step has a span only where the request waited on it:
// authentication when the key was looked up in Redis (not when it came from the process' cache), admission
// when it reserved in Redis (not on the replica's lease, which is bookkeeping in memory), the queue when it
// waited for a place (not when one was free), and any step where the request was refused. The
// settlement is queued and written after the request's turn: its figures are the request's span's attributes.
// Nothing is built for a request the sampler left out (isRecording is false).

import type { IncomingHttpHeaders } from "node:http";
import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  type HrTime,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { hrTime, W3CTraceContextPropagator } from "@opentelemetry/core";
import { rublesForJson } from "../../core/money.js";
import type { GatewayRequest, RequestTrace } from "../../core/request.js";
import type { RequestTelemetry, Tracing } from "../telemetry.js";
import { ATTR, cacheTokens, FIRST_BYTE_EVENT, operationOf, STEP_SPANS } from "./gen-ai.js";

/** What the spans say of the gateway's surroundings. */
export interface SpanOptions {
  /** Take the client's traceparent and pass one to the model server (OTEL_PROPAGATORS has tracecontext). */
  propagate: boolean;
  provider: string;
  server: { address: string; port: number };
}

/** Outcomes that are failures of the exchange with the model server, or of the gateway's answer. */
const FAILED = new Set(["upstream_unavailable", "upstream_timeout", "upstream_reset", "shutdown"]);

/** The trace of one request while it runs. */
class RequestSpans implements RequestTrace {
  readonly traceId: string;
  readonly spanId: string;
  readonly sampled: boolean;
  /** The exchange's span, from its forwarding on. */
  upstream: Span | null = null;

  constructor(
    private readonly tracer: Tracer,
    private readonly propagator: W3CTraceContextPropagator | null,
    readonly server: Span,
    /** The context of the request's span: the parent of every step's. */
    readonly context: Context,
  ) {
    const { traceId, spanId, traceFlags } = server.spanContext();
    this.traceId = traceId;
    this.spanId = spanId;
    this.sampled = (traceFlags & 1) === 1;
  }

  forwarding(headers: IncomingHttpHeaders, at: number): void {
    const span = this.tracer.startSpan(
      "upstream",
      { kind: SpanKind.CLIENT, startTime: hrTime(at) },
      this.context,
    );
    this.upstream = span;
    if (this.propagator === null) return;
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
    // A tracestate that came without a valid traceparent belongs to no trace the model server will see.
    if (span.spanContext().traceState === undefined && headers.tracestate !== undefined) {
      Reflect.deleteProperty(headers, "tracestate");
    }
  }
}

/** Begins the traces of forwarded requests, and ends them (and makes those of other refusals) at their end. */
export class RequestSpanSink implements Tracing, RequestTelemetry {
  private readonly propagator: W3CTraceContextPropagator | null;

  constructor(
    private readonly tracer: Tracer,
    private readonly options: SpanOptions,
  ) {
    this.propagator = options.propagate ? new W3CTraceContextPropagator() : null;
  }

  begin(headers: IncomingHttpHeaders, arrivedAt: number): RequestTrace {
    const parent =
      this.propagator === null
        ? ROOT_CONTEXT
        : this.propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
    const server = this.tracer.startSpan(
      "request",
      { kind: SpanKind.SERVER, startTime: hrTime(arrivedAt) },
      parent,
    );
    return new RequestSpans(this.tracer, this.propagator, server, trace.setSpan(parent, server));
  }

  finished(request: GatewayRequest): void {
    const spans = request.trace as RequestSpans | null;
    if (spans !== null) this.end(request, spans, true);
  }

  refused(request: GatewayRequest): void {
    // Refused before the forwarder had it (HTTPS required, a local route's method); not those Node's parser
    // refused, which have no method or path to name them by.
    const spans =
      (request.trace as RequestSpans | null) ??
      (request.method === null ? null : (this.begin({}, request.arrivedAt) as RequestSpans));
    if (spans !== null) this.end(request, spans, false);
  }

  private end(request: GatewayRequest, spans: RequestSpans, settled: boolean): void {
    const endAt = hrTime(request.arrivedAt + request.latencyMs);
    if (!spans.server.isRecording()) {
      // Nothing is recorded; the spans are ended all the same, as the API asks.
      spans.upstream?.end(endAt);
      spans.server.end(endAt);
      return;
    }
    const operation = operationOf(request);
    this.steps(request, spans, endAt);
    if (spans.upstream !== null) this.exchange(request, spans.upstream, operation, endAt);
    const server = spans.server;
    server.updateName(spanName(request));
    server.setAttributes(serverAttributes(request, operation, settled));
    const failure = errorType(request);
    if (failure !== null) {
      server.setAttribute(ATTR.errorType, failure);
      // As the HTTP conventions say of a server's span: its own failures (5xx) are errors, a refusal (4xx) is not.
      if (request.status >= 500 || FAILED.has(request.outcome)) {
        server.setStatus({ code: SpanStatusCode.ERROR, message: failure });
      }
    }
    server.end(endAt);
  }

  /**
   * The gateway's steps that waited, from the times on the request: a step begun but not finished is where it
   * was refused.
   */
  private steps(request: GatewayRequest, spans: RequestSpans, endAt: HrTime): void {
    const { arrivedAt, authenticatedAt, admittingAt, admittedAt } = request;
    // Authentication waited only when the key was looked up in Redis; one from the process' cache is a map
    // lookup, and no span. A request refused there, or before it, has the span of where it was refused.
    if (request.keyLookedUp || authenticatedAt === 0) {
      this.step(spans, STEP_SPANS.auth, hrTime(arrivedAt), at(authenticatedAt), endAt, request, null);
    }
    // On the lease, admission is the lease book's arithmetic: no wait, and no span (the request's span says
    // tunnel_gateway.admission=lease).
    if (admittingAt > 0 && (request.admission !== "lease" || admittedAt === 0)) {
      const attributes: Attributes = { [ATTR.reservedRub]: rublesForJson(request.reserved) };
      if (request.admission !== null) attributes[ATTR.admission] = request.admission;
      this.step(spans, STEP_SPANS.admission, hrTime(admittingAt), at(admittedAt), endAt, request, attributes);
    }
    // With upstream.maxInFlight set, every admitted request asks the fair queue for a place at the model
    // server (proxy/sharing/upstream-gate.ts): a span of its wait when it waited, and where a request refused with
    // server_busy was refused.
    const busy = request.code === "server_busy";
    if (request.queuedAt > 0 && (busy || request.queueMs > 0)) {
      const left = hrTime(request.dequeuedAt || request.queuedAt);
      this.step(spans, STEP_SPANS.queue, hrTime(request.queuedAt), busy ? null : left, left, request, null);
    }
  }

  private step(
    spans: RequestSpans,
    name: string,
    start: HrTime,
    end: HrTime | null,
    refusedAt: HrTime,
    request: GatewayRequest,
    attributes: Attributes | null,
  ): void {
    const span = this.tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, startTime: start, attributes: attributes ?? undefined },
      spans.context,
    );
    if (end === null && request.code !== null) {
      span.setAttribute(ATTR.errorType, request.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: request.code });
    }
    span.end(end ?? refusedAt);
  }

  /** The exchange with the model server, as the GenAI conventions describe an inference call. */
  private exchange(request: GatewayRequest, span: Span, operation: string | null, endAt: HrTime): void {
    const { provider, server } = this.options;
    const attributes: Attributes = {
      [ATTR.provider]: provider,
      [ATTR.serverAddress]: server.address,
      [ATTR.serverPort]: server.port,
    };
    if (operation !== null) attributes[ATTR.operation] = operation;
    if (request.model !== null) attributes[ATTR.requestModel] = request.model;
    if (request.upstreamStatus > 0) attributes[ATTR.statusCode] = request.upstreamStatus;
    if (request.usageClass !== null && request.metered) {
      attributes[ATTR.inputTokens] = request.promptTokens;
      if (request.usageClass === "generation") attributes[ATTR.outputTokens] = request.completionTokens;
      const cache = cacheTokens(request);
      if (cache !== null) attributes[ATTR.cacheReadTokens] = cache.read;
      if (cache?.write != null) attributes[ATTR.cacheWriteTokens] = cache.write;
    }
    if (request.upstreamTtfbMs !== null) {
      attributes[ATTR.timeToFirstByte] = request.upstreamTtfbMs / 1000;
      span.addEvent(FIRST_BYTE_EVENT, hrTime(request.firstByteAt));
    }
    span.updateName(operation === null ? "upstream" : `${operation} ${request.model ?? ""}`.trimEnd());
    span.setAttributes(attributes);
    const failure = FAILED.has(request.outcome)
      ? request.outcome
      : request.upstreamStatus >= 400
        ? String(request.upstreamStatus)
        : null;
    if (failure !== null) {
      span.setAttribute(ATTR.errorType, failure);
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
    }
    span.end(endAt);
  }
}

/**
 * A time of the request path (performance.now(), ms) as the spans' clock: every span's times from the one
 * anchor, performance.timeOrigin, so that steps line up with the request's span to the nanosecond (given as
 * numbers, the SDK would anchor each span anew, to Date.now()'s millisecond).
 */
function at(ms: number): HrTime | null {
  return ms === 0 ? null : hrTime(ms);
}

/** `POST /v1/chat/completions` for the paths of the endpoint table; the method alone for any other path. */
function spanName(request: GatewayRequest): string {
  const method = request.method ?? "HTTP";
  const known = request.endpointClass !== null && request.endpointClass !== "other";
  return known && request.path !== null ? `${method} ${request.path}` : method;
}

function serverAttributes(request: GatewayRequest, operation: string | null, settled: boolean): Attributes {
  const attributes: Attributes = {
    [ATTR.statusCode]: request.status,
    [ATTR.outcome]: request.outcome,
  };
  if (request.method !== null) attributes[ATTR.method] = request.method;
  if (request.path !== null) attributes[ATTR.urlPath] = request.path;
  if (request.requestId !== null) attributes[ATTR.requestId] = request.requestId;
  if (request.keyId !== null) attributes[ATTR.keyId] = request.keyId;
  if (request.accountId !== null) attributes[ATTR.accountId] = request.accountId;
  if (request.endpointClass !== null) attributes[ATTR.endpointClass] = request.endpointClass;
  if (request.model !== null) attributes[ATTR.requestModel] = request.model;
  if (operation !== null) attributes[ATTR.operation] = operation;
  if (request.admission !== null) {
    attributes[ATTR.admission] = request.admission;
    attributes[ATTR.costRub] = rublesForJson(request.cost);
    // The settlement, worked out and handed to the settlement queue before the observer is called; the queue
    // writes it to Redis in a batch afterwards (tunnel_redis_operation_seconds{operation="settle"}).
    if (settled) {
      attributes[ATTR.estimated] = request.estimated;
      if (request.usageRejected !== null) attributes[ATTR.usageRejected] = request.usageRejected;
      if (request.overage > 0) attributes[ATTR.overageRub] = rublesForJson(request.overage);
    }
  }
  return attributes;
}

/** The error.type of a request that failed: the error table's code, else how it failed. */
function errorType(request: GatewayRequest): string | null {
  if (request.code !== null) return request.code;
  if (FAILED.has(request.outcome)) return request.outcome;
  return request.status >= 500 ? String(request.status) : null;
}
