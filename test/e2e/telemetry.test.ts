// OpenTelemetry end to end: a real gateway configured by OTEL_* variables exports to an OTLP/HTTP receiver the
// test runs (test/helpers/otlp-receiver.ts). A request's trace — the gateway's span under the client's, its
// steps, the exchange with the model server and its GenAI attributes — the traceparent the model server
// receives, the log line's trace ids and the GenAI metrics are checked in what was exported; and nothing
// exported, in any payload's raw bytes, carries a key, the model server's key or a body.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBusyModelServer } from "../helpers/busy-model-server.js";
import { RealClock } from "../helpers/clock.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../helpers/otlp-receiver.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

const CLIENT_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CLIENT_SPAN = "b7ad6b7169203331";
const TRACESTATE = "vendor=opaque-value";
const UPSTREAM_KEY = "upstream-secret-3f9c1e";
const PROMPT = "tell me about the secret garden";

const SERVER = 2;
const CLIENT = 3;

let upstream: StubUpstream;

beforeAll(async () => {
  upstream = await startStubUpstream();
});
afterAll(async () => {
  await upstream.close();
});

/** A gateway exporting to a fresh receiver; closing it flushes every span and metric. */
async function tracedGateway(
  env: Record<string, string> = {},
): Promise<{ t: TestGateway; otlp: OtlpReceiver }> {
  return tracedGatewayWith({}, env);
}

/** The same, with more of the configuration set (`upstream` adds to the model server's key). */
async function tracedGatewayWith(
  config: { upstream?: Record<string, unknown> },
  env: Record<string, string> = {},
): Promise<{ t: TestGateway; otlp: OtlpReceiver }> {
  const otlp = await startOtlpReceiver();
  const t = await startTestGateway({
    upstreamUrl: upstream.url,
    config: { upstream: { apiKey: UPSTREAM_KEY, ...config.upstream } },
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", ...env },
  });
  return { t, otlp };
}

function chat(t: TestGateway, key: string, stream: boolean, headers: Record<string, string> = {}) {
  return t.fetch("/v1/chat/completions", {
    method: "POST",
    key,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({
      model: "demo-small",
      stream,
      max_tokens: 20,
      messages: [{ role: "user", content: PROMPT }],
    }),
  });
}

function only(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0] as ReceivedSpan;
}

/** Fails naming the secret when any exported payload carries it. */
function expectNowhere(otlp: OtlpReceiver, secrets: string[]): void {
  expect(otlp.payloads.length).toBeGreaterThan(0);
  for (const payload of otlp.payloads) {
    const raw = payload.body.toString("latin1");
    for (const secret of secrets)
      expect(raw.includes(secret), `${payload.path} carries "${secret}"`).toBe(false);
  }
}

describe("a traced request", () => {
  let t: TestGateway;
  let otlp: OtlpReceiver;
  let key: { value: string; id: string; accountId: string };
  let spans: ReceivedSpan[];

  beforeAll(async () => {
    ({ t, otlp } = await tracedGateway());
    key = await t.newKey();
    const traceparent = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
    const res = await chat(t, key.value, false, { traceparent, tracestate: TRACESTATE });
    expect(res.status).toBe(200);
    await res.text();
    const streamed = await chat(t, key.value, true);
    expect(streamed.status).toBe(200);
    await streamed.text();
    await t.close();
    spans = otlp.spans();
  });
  afterAll(async () => {
    await otlp.close();
  });

  it("is one span of the gateway's under the client's, named for the route, with the key, the account and the cost", () => {
    const request = spans.find(
      (span) => span.traceId === CLIENT_TRACE && span.kind === SERVER,
    ) as ReceivedSpan;
    expect(request.name).toBe("POST /v1/chat/completions");
    expect(request.parentSpanId).toBe(CLIENT_SPAN);
    expect(request.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.response.status_code": 200,
      "tunnel_gateway.key_id": key.id,
      "tunnel_gateway.account_id": key.accountId,
      "tunnel_gateway.outcome": "completed",
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "demo-small",
    });
    expect(["lease", "reserve"]).toContain(request.attributes["tunnel_gateway.admission"]);
    expect(request.attributes["tunnel_gateway.cost_rub"]).toBeGreaterThan(0);
    expect(request.resource["service.name"]).toBe("tunnel-gateway");
  });

  it("has a span for each of the gateway's steps that waited, within the request's span and in their order", () => {
    const trace = spans.filter((span) => span.traceId === CLIENT_TRACE);
    const request = trace.find((span) => span.kind === SERVER) as ReceivedSpan;
    // The key's first request: it was looked up in Redis, so authentication waited and has its span.
    const auth = only(trace, "tunnel_gateway.auth");
    const exchange = only(trace, "chat demo-small");
    // No upstream.maxInFlight: no queue, and no span of it. The settlement is queued after the request's turn:
    // its figures are on the request's span, and it has no span of its own.
    expect(trace.filter((span) => span.name === "tunnel_gateway.queue")).toEqual([]);
    expect(trace.filter((span) => span.name === "tunnel_gateway.settlement")).toEqual([]);
    expect(request.attributes["tunnel_gateway.usage_estimated"]).toBe(false);
    const admissions = trace.filter((span) => span.name === "tunnel_gateway.admission");
    // Admission waited only when it reserved in Redis; on the replica's lease it is arithmetic in memory.
    const reserved = request.attributes["tunnel_gateway.admission"] === "reserve";
    expect(admissions).toHaveLength(reserved ? 1 : 0);
    for (const step of [auth, exchange, ...admissions]) expect(step.parentSpanId).toBe(request.spanId);
    expect(auth.startNs).toBe(request.startNs);
    expect(auth.endNs <= exchange.startNs).toBe(true);
    for (const admission of admissions) {
      expect(auth.endNs <= admission.startNs).toBe(true);
      expect(admission.endNs <= exchange.startNs).toBe(true);
      expect(admission.attributes["tunnel_gateway.admission"]).toBe("reserve");
    }
    expect(exchange.endNs).toBe(request.endNs);
  });

  it("describes the exchange with the model server in the GenAI conventions, its first byte an event", () => {
    const exchange = only(
      spans.filter((span) => span.traceId === CLIENT_TRACE),
      "chat demo-small",
    );
    const port = Number(new URL(upstream.url).port);
    expect(exchange.kind).toBe(CLIENT);
    expect(exchange.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "vllm",
      "gen_ai.request.model": "demo-small",
      "server.address": "127.0.0.1",
      "server.port": port,
      "http.response.status_code": 200,
    });
    expect(exchange.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(exchange.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    const firstByte = exchange.events.find((event) => event.name === "tunnel_gateway.upstream.first_byte");
    expect(
      firstByte !== undefined && firstByte.timeNs > exchange.startNs && firstByte.timeNs <= exchange.endNs,
    ).toBe(true);
    expect(exchange.attributes["tunnel_gateway.upstream.time_to_first_byte"]).toBeGreaterThan(0);
  });

  it("passes the model server a traceparent naming the exchange's span, and the client's tracestate", () => {
    const exchange = only(
      spans.filter((span) => span.traceId === CLIENT_TRACE),
      "chat demo-small",
    );
    const forwarded = upstream.requests.find((seen) => seen.headers.traceparent?.includes(CLIENT_TRACE));
    expect(forwarded?.headers.traceparent).toBe(`00-${CLIENT_TRACE}-${exchange.spanId}-01`);
    expect(forwarded?.headers.tracestate).toBe(TRACESTATE);
  });

  it("starts a trace of its own for a request that brings none, and passes that on", () => {
    const roots = spans.filter((span) => span.kind === SERVER && span.parentSpanId === "");
    expect(roots).toHaveLength(1);
    const root = roots[0] as ReceivedSpan;
    const exchange = spans.find(
      (span) => span.traceId === root.traceId && span.kind === CLIENT,
    ) as ReceivedSpan;
    const forwarded = upstream.requests.filter((seen) => seen.headers.traceparent?.includes(root.traceId));
    expect(forwarded.map((seen) => seen.headers.traceparent)).toEqual([
      `00-${root.traceId}-${exchange.spanId}-01`,
    ]);
  });

  it("writes the trace's ids on the request's log line", () => {
    const request = spans.find(
      (span) => span.traceId === CLIENT_TRACE && span.kind === SERVER,
    ) as ReceivedSpan;
    const lines = t.logs.filter((line) => line.msg === "request" && line.trace_id === CLIENT_TRACE);
    expect(lines.map((line) => line.span_id)).toEqual([request.spanId]);
  });

  it("exports the GenAI metrics with the conventions' names, units and buckets", () => {
    const metrics = otlp.metrics();
    const byName = (name: string) => metrics.filter((metric) => metric.name === name);
    const tokens = byName("gen_ai.client.token.usage");
    expect(tokens.map((metric) => metric.unit)).toContain("{token}");
    const types = tokens.flatMap((metric) =>
      metric.points.map((point) => point.attributes["gen_ai.token.type"]),
    );
    expect(new Set(types)).toEqual(new Set(["input", "output"]));
    const point = tokens[0]?.points[0];
    expect(point?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "vllm",
      "gen_ai.request.model": "demo-small",
    });
    expect(point?.bounds.slice(0, 3)).toEqual([1, 4, 16]);
    const duration = byName("gen_ai.client.operation.duration");
    expect(duration[0]?.unit).toBe("s");
    expect(duration[0]?.points[0]?.count).toBe(2);
    // One of the two requests streamed: only it has a time to first token and per output token.
    for (const name of ["gen_ai.server.time_to_first_token", "gen_ai.server.time_per_output_token"]) {
      const metric = byName(name);
      expect(metric[0]?.unit).toBe("s");
      expect(metric[0]?.points.map((p) => p.count)).toEqual([1]);
    }
  });

  it("exports no key, no model server key and no body", () => {
    expectNowhere(otlp, [key.value, UPSTREAM_KEY, PROMPT, "secret garden"]);
  });
});

describe("a request under fair sharing", () => {
  it("has a span for its wait for the model server, before the exchange, when it waited", async () => {
    const busy = await startBusyModelServer({ capacity: 1, serviceMs: 200 });
    const otlp = await startOtlpReceiver();
    const t = await startTestGateway({
      upstreamUrl: busy.url,
      clock: new RealClock(),
      config: { upstream: { maxInFlight: 1 } },
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
    });
    try {
      const key = await t.newKey();
      const untraced = `00-${"1".repeat(32)}-${CLIENT_SPAN}-01`;
      // Alone, a place is free at once: no wait, and no span of one.
      expect((await chat(t, key.value, false, { traceparent: untraced })).status).toBe(200);
      const running = chat(t, key.value, false);
      await waitUntil(() => busy.running === 1, "the first request to run");
      const traceparent = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
      expect((await chat(t, key.value, false, { traceparent })).status).toBe(200);
      expect((await running).status).toBe(200);
      await t.close();
      expect(
        otlp
          .spans()
          .filter((span) => span.traceId === "1".repeat(32) && span.name === "tunnel_gateway.queue"),
      ).toEqual([]);
      const trace = otlp.spans().filter((span) => span.traceId === CLIENT_TRACE);
      const request = trace.find((span) => span.kind === SERVER) as ReceivedSpan;
      const queue = only(trace, "tunnel_gateway.queue");
      const exchange = only(trace, "chat demo-small");
      // The first request put the key in the process' cache: this one's authentication waited for nothing.
      expect(trace.filter((span) => span.name === "tunnel_gateway.auth")).toEqual([]);
      expect(queue.parentSpanId).toBe(request.spanId);
      expect(request.startNs <= queue.startNs).toBe(true);
      expect(queue.startNs < queue.endNs).toBe(true);
      expect(queue.endNs <= exchange.startNs).toBe(true);
    } finally {
      await otlp.close();
      await busy.close();
    }
  });

  it("marks the wait of a request refused with server_busy as where it was refused", async () => {
    const busy = await startBusyModelServer({ capacity: 1, serviceMs: 400 });
    const otlp = await startOtlpReceiver();
    const t = await startTestGateway({
      upstreamUrl: busy.url,
      clock: new RealClock(),
      config: { upstream: { maxInFlight: 1 }, queue: { maxWaitMs: 50 } },
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
    });
    try {
      const key = await t.newKey();
      const running = chat(t, key.value, false);
      await waitUntil(() => busy.running === 1, "the first request to run");
      const traceparent = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
      const refused = await chat(t, key.value, false, { traceparent });
      expect(refused.status).toBe(429);
      expect((await running).status).toBe(200);
      await t.close();
      const queue = only(
        otlp.spans().filter((span) => span.traceId === CLIENT_TRACE),
        "tunnel_gateway.queue",
      );
      expect(queue.status).toBe(2);
      expect(queue.attributes["error.type"]).toBe("server_busy");
      // The span covers the wait up to the refusal at queue.maxWaitMs (50 ms): a Node timer counts from the
      // event loop's cached time, so by the spans' high-resolution clock it may fire a little early (49.85 ms
      // seen); 45 ms tells the wait from a refusal on arrival all the same.
      expect(queue.endNs - queue.startNs).toBeGreaterThanOrEqual(45_000_000);
    } finally {
      await otlp.close();
      await busy.close();
    }
  });
});

describe("a refused request", () => {
  it("is a span under the client's with the error table's code", async () => {
    const { t, otlp } = await tracedGateway();
    try {
      const traceparent = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
      const bogus = `sk-tunnel-${"0".repeat(64)}`;
      const res = await chat(t, bogus, false, { traceparent });
      expect(res.status).toBe(401);
      const { error } = (await res.json()) as { error: { code: string } };
      await t.close();
      const request = otlp.spans().find((span) => span.kind === SERVER) as ReceivedSpan;
      expect(request.parentSpanId).toBe(CLIENT_SPAN);
      expect(request.attributes["error.type"]).toBe(error.code);
      expect(request.attributes["tunnel_gateway.outcome"]).toBe("refused");
      const auth = only(otlp.spans(), "tunnel_gateway.auth");
      expect(auth.status).toBe(2);
      expect(auth.attributes["error.type"]).toBe(error.code);
      expectNowhere(otlp, [bogus, PROMPT]);
    } finally {
      await otlp.close();
    }
  });
});

describe("sampling", () => {
  it("records nothing a ratio of 0 leaves out, and tells the model server so", async () => {
    const { t, otlp } = await tracedGateway({
      OTEL_TRACES_SAMPLER: "traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0",
    });
    try {
      const key = await t.newKey();
      const before = upstream.requests.length;
      const res = await chat(t, key.value, false);
      await res.text();
      await t.close();
      expect(otlp.spans()).toEqual([]);
      const forwarded = upstream.requests.slice(before);
      expect(forwarded.map((seen) => String(seen.headers.traceparent).endsWith("-00"))).toEqual([true]);
      expect(t.logs.filter((line) => line.msg === "request").map((line) => line.trace_id)).toEqual([
        undefined,
      ]);
    } finally {
      await otlp.close();
    }
  });
});

describe("over OTLP/HTTP with protobuf, the default protocol", () => {
  it("sends the traces as protobuf to /v1/traces, the trace's id in them and no key", async () => {
    const { t, otlp } = await tracedGateway({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" });
    try {
      const key = await t.newKey();
      const res = await chat(t, key.value, false, { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` });
      await res.text();
      await t.close();
      const traces = otlp.payloads.filter((payload) => payload.path === "/v1/traces");
      expect(traces.map((payload) => payload.contentType)).toEqual(["application/x-protobuf"]);
      expect((traces[0] as { body: Buffer }).body.includes(Buffer.from(CLIENT_TRACE, "hex"))).toBe(true);
      expectNowhere(otlp, [key.value, UPSTREAM_KEY, PROMPT]);
    } finally {
      await otlp.close();
    }
  });
});
