// A request's trace, made with the SDK's own TracerProvider and kept by its in-memory exporter (the export over
// OTLP and a whole gateway's traces are test/e2e/telemetry.test.ts): the client's traceparent taken and one
// naming the exchange passed on (and a tracestate dropped without a traceparent); a span for each step that
// waited — authentication when the key was looked up in Redis, admission unless on the lease, the queue only
// when it waited or refused — the refused step marked as the error; the exchange with the GenAI attributes;
// the request's span named by its route, an error only for the gateway's own failures; refusals before the
// forwarder given a span of their own, those Node refused none; nothing recorded for a request the sampler
// left out.

import type { IncomingHttpHeaders } from "node:http";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { RequestSpanSink } from "../../../src/observability/otel/request-spans.js";
import { type RequestFields, requestWith } from "../../helpers/requests.js";

const CLIENT_TRACE = "0af7651916cd43dd8448eb211c80319c";
const TRACEPARENT = `00-${CLIENT_TRACE}-b7ad6b7169203331-01`;

function sink(options: { propagate?: boolean; sampled?: boolean } = {}) {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    ...(options.sampled === false && { sampler: new AlwaysOffSampler() }),
  });
  const spans = new RequestSpanSink(provider.getTracer("test"), {
    propagate: options.propagate ?? true,
    provider: "vllm",
    server: { address: "127.0.0.1", port: 8000 },
  });
  const byName = (name: string) => exporter.getFinishedSpans().find((span) => span.name === name);
  return { spans, exporter, byName };
}

/** A chat completion of key_a that went through every step, traced by `sink` from its arrival. */
function traced(
  s: ReturnType<typeof sink>,
  fields: RequestFields = {},
  headers: IncomingHttpHeaders = {},
  forwarded: IncomingHttpHeaders = {},
) {
  const trace = s.spans.begin(headers, 1000);
  const request = requestWith({
    method: "POST",
    path: "/v1/chat/completions",
    requestId: "req-1",
    accountId: "acme",
    keyId: "key_a",
    endpointClass: "generation",
    usageClass: "generation",
    metered: true,
    model: "m",
    status: 200,
    upstreamStatus: 200,
    outcome: "completed",
    arrivedAt: 1000,
    authenticatedAt: 1001,
    keyLookedUp: true,
    admittingAt: 1002,
    admittedAt: 1003,
    admission: "reserve",
    forwardedAt: 1004,
    latencyMs: 100,
    promptTokens: 12,
    completionTokens: 5,
    trace,
    ...fields,
  });
  if (request.forwardedAt > 0) trace.forwarding(forwarded, request.forwardedAt);
  return request;
}

const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;

describe("RequestSpanSink", () => {
  it("continues the client's trace and passes the model server a traceparent naming the exchange", () => {
    const s = sink();
    const forwarded: IncomingHttpHeaders = {};
    s.spans.finished(traced(s, {}, { traceparent: TRACEPARENT }, forwarded));
    const server = s.byName("POST /v1/chat/completions");
    const exchange = s.byName("chat m");
    expect(server?.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(parentOf(server)).toBe("b7ad6b7169203331");
    expect(forwarded.traceparent).toBe(`00-${CLIENT_TRACE}-${exchange?.spanContext().spanId}-01`);
    expect(parentOf(exchange)).toBe(server?.spanContext().spanId);
  });

  it("drops a tracestate that came without a valid traceparent, and propagates nothing when told not to", () => {
    const s = sink();
    const forwarded: IncomingHttpHeaders = { tracestate: "vendor=1" };
    s.spans.finished(traced(s, {}, { tracestate: "vendor=1" }, forwarded));
    expect(forwarded.tracestate).toBeUndefined();
    const quiet = sink({ propagate: false });
    const untouched: IncomingHttpHeaders = { traceparent: TRACEPARENT };
    quiet.spans.finished(traced(quiet, {}, { traceparent: TRACEPARENT }, untouched));
    expect(untouched.traceparent).toBe(TRACEPARENT);
    expect(quiet.byName("POST /v1/chat/completions")?.spanContext().traceId).not.toBe(CLIENT_TRACE);
  });

  it("makes spans of the steps that waited, the exchange's GenAI attributes, and the request's facts", () => {
    const s = sink();
    s.spans.finished(traced(s, { upstreamTtfbMs: 20, firstByteAt: 1024 }));
    expect(
      s.exporter
        .getFinishedSpans()
        .map((span) => span.name)
        .sort(),
    ).toEqual(["POST /v1/chat/completions", "chat m", "tunnel_gateway.admission", "tunnel_gateway.auth"]);
    const exchange = s.byName("chat m");
    expect(exchange?.kind).toBe(SpanKind.CLIENT);
    expect(exchange?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "vllm",
      "gen_ai.request.model": "m",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 5,
      "http.response.status_code": 200,
      "tunnel_gateway.upstream.time_to_first_byte": 0.02,
    });
    expect(exchange?.events.map((event) => event.name)).toEqual(["tunnel_gateway.upstream.first_byte"]);
    const server = s.byName("POST /v1/chat/completions");
    expect(server?.kind).toBe(SpanKind.SERVER);
    expect(server?.attributes).toMatchObject({
      "tunnel_gateway.request_id": "req-1",
      "tunnel_gateway.key_id": "key_a",
      "tunnel_gateway.account_id": "acme",
      "tunnel_gateway.admission": "reserve",
      "tunnel_gateway.outcome": "completed",
    });
    expect(server?.status.code).toBe(SpanStatusCode.UNSET);
    expect(JSON.stringify(s.exporter.getFinishedSpans().map((span) => span.attributes))).not.toMatch(/sk-/);
  });

  it("makes an authentication span only when the key was looked up in Redis, not when it was cached", () => {
    const looked = sink();
    looked.spans.finished(traced(looked, {}));
    const auth = looked.byName("tunnel_gateway.auth");
    expect(auth?.startTime).toEqual(looked.byName("POST /v1/chat/completions")?.startTime);
    expect(auth?.status.code).toBe(SpanStatusCode.UNSET);
    const cached = sink();
    cached.spans.finished(traced(cached, { keyLookedUp: false, admission: "lease" }));
    expect(cached.exporter.getFinishedSpans().map((span) => span.name)).toEqual([
      "chat m",
      "POST /v1/chat/completions",
    ]);
    const refused = sink();
    refused.spans.finished(
      traced(refused, {
        keyLookedUp: false,
        authenticatedAt: 0,
        admittingAt: 0,
        admittedAt: 0,
        forwardedAt: 0,
        code: "invalid_api_key",
        status: 401,
        outcome: "refused",
        upstreamStatus: 0,
      }),
    );
    expect(refused.byName("tunnel_gateway.auth")?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: "invalid_api_key",
    });
  });

  it("makes no admission span on the lease, and a queue span only when the request waited", () => {
    const s = sink();
    s.spans.finished(traced(s, { admission: "lease", queuedAt: 1003, dequeuedAt: 1003 }));
    expect(s.byName("tunnel_gateway.admission")).toBeUndefined();
    expect(s.byName("tunnel_gateway.queue")).toBeUndefined();
    const waited = sink();
    waited.spans.finished(traced(waited, { queuedAt: 1003, dequeuedAt: 1050, forwardedAt: 1051 }));
    expect(waited.byName("tunnel_gateway.queue")?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("marks the step where a request was refused as the error, the request's span not an error for a 4xx", () => {
    const s = sink();
    s.spans.finished(
      traced(s, {
        admittedAt: 0,
        forwardedAt: 0,
        code: "budget_exceeded",
        status: 402,
        outcome: "refused",
        upstreamStatus: 0,
      }),
    );
    const admission = s.byName("tunnel_gateway.admission");
    expect(admission?.status).toEqual({ code: SpanStatusCode.ERROR, message: "budget_exceeded" });
    expect(admission?.attributes["error.type"]).toBe("budget_exceeded");
    const server = s.byName("POST /v1/chat/completions");
    expect(server?.attributes["error.type"]).toBe("budget_exceeded");
    expect(server?.status.code).toBe(SpanStatusCode.UNSET);
    expect(s.byName("chat m")).toBeUndefined();
  });

  it("marks a refusal by the busy model server on the queue span", () => {
    const s = sink();
    s.spans.finished(
      traced(s, {
        queuedAt: 1003,
        dequeuedAt: 0,
        forwardedAt: 0,
        code: "server_busy",
        status: 503,
        outcome: "refused",
      }),
    );
    expect(s.byName("tunnel_gateway.queue")?.status.code).toBe(SpanStatusCode.ERROR);
    expect(s.byName("POST /v1/chat/completions")?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: "server_busy",
    });
  });

  it("marks a failed exchange as the error on both spans, with how it failed or the server's status", () => {
    const s = sink();
    s.spans.finished(traced(s, { outcome: "upstream_timeout", status: 504, upstreamStatus: 0 }));
    expect(s.byName("chat m")?.attributes["error.type"]).toBe("upstream_timeout");
    expect(s.byName("POST /v1/chat/completions")?.status.code).toBe(SpanStatusCode.ERROR);
    const bad = sink();
    bad.spans.finished(traced(bad, { upstreamStatus: 500, status: 500 }));
    expect(bad.byName("chat m")?.status).toEqual({ code: SpanStatusCode.ERROR, message: "500" });
    expect(bad.byName("POST /v1/chat/completions")?.attributes["error.type"]).toBe("500");
  });

  it("gives a request refused before the forwarder a span of its own, and none to one Node refused", () => {
    const s = sink();
    s.spans.refused(
      requestWith({
        method: "GET",
        path: "/somewhere",
        endpointClass: "other",
        status: 405,
        outcome: "refused",
        code: "method_not_allowed" as never,
      }),
    );
    expect(s.exporter.getFinishedSpans().map((span) => span.name)).toContain("GET");
    const before = s.exporter.getFinishedSpans().length;
    s.spans.refused(requestWith({ status: 400, outcome: "refused" }));
    expect(s.exporter.getFinishedSpans()).toHaveLength(before);
  });

  it("records nothing of a request the sampler left out, ending its spans all the same", () => {
    const s = sink({ sampled: false });
    const request = traced(s);
    expect(request.trace?.sampled).toBe(false);
    s.spans.finished(request);
    expect(s.exporter.getFinishedSpans()).toEqual([]);
  });
});
