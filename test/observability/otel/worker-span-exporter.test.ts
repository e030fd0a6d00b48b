// The span exporter that serializes and sends in a worker thread (observability/otel/span-export-worker.ts):
// it must send exactly what the SDK's own exporter sends in-process (the same bytes, for every shape of span:
// attributes, events, links, a parent, a trace state, an error status), report a collector that is away as a
// failed export, fail the batches of a worker that is lost and start a new one, and after its shutdown export
// nothing more.

import { context, createTraceState, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ExportWorkerSetup,
  spanRecord,
  WorkerSpanExporter,
} from "../../../src/observability/otel/worker-span-exporter.js";
import { freePort } from "../../helpers/http.js";
import { type OtlpReceiver, startOtlpReceiver } from "../../helpers/otlp-receiver.js";

let otlp: OtlpReceiver;
beforeAll(async () => {
  otlp = await startOtlpReceiver();
});
afterAll(() => otlp?.close());

const RESOURCE = {
  "service.name": "tunnel-gateway",
  "service.version": "9.9.9",
  "deployment.environment": "test",
};

/** Spans of every shape the serializers read, made by the SDK itself. */
function madeSpans(): ReadableSpan[] {
  const ended: ReadableSpan[] = [];
  const collect: SpanProcessor = {
    onStart: () => {},
    onEnd: (span) => void ended.push(span),
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const provider = new TracerProvider({
    resource: resourceFromAttributes(RESOURCE, { schemaUrl: "https://opentelemetry.io/schemas/1.30.0" }),
    spanProcessors: [collect],
  });
  const tracer = provider.getTracer("tunnel-gateway", "9.9.9");
  const remote = trace.setSpanContext(context.active(), {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: "b7ad6b7169203331",
    traceFlags: 1,
    isRemote: true,
    traceState: createTraceState("vendor=a,other=b"),
  });
  const server = tracer.startSpan(
    "POST /v1/chat/completions",
    { kind: SpanKind.SERVER, startTime: [1_800_000_000, 5] },
    remote,
  );
  server.setAttributes({
    "http.response.status_code": 200,
    "tunnel_gateway.cost_rub": "0.0051",
    ok: true,
    ratio: 0.25,
  });
  server.setAttribute("tags", ["a", "б"]);
  const child = tracer.startSpan(
    "chat demo-small",
    {
      kind: SpanKind.CLIENT,
      startTime: [1_800_000_000, 1_000],
      links: [{ context: server.spanContext(), attributes: { why: "retry" } }],
    },
    trace.setSpan(context.active(), server),
  );
  child.addEvent("gen_ai.first_byte", { at: 1 }, [1_800_000_000, 2_000]);
  child.setStatus({ code: SpanStatusCode.ERROR, message: "upstream_timeout" });
  child.end([1_800_000_000, 3_000]);
  server.end([1_800_000_001, 0]);
  return ended;
}

function exported(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

function setupFor(url: string): ExportWorkerSetup {
  return {
    protocol: "http/protobuf",
    url,
    resource: { attributes: RESOURCE, schemaUrl: "https://opentelemetry.io/schemas/1.30.0" },
    logLevel: 0,
  };
}

describe("WorkerSpanExporter", () => {
  it("copies a span into plain data that a structured clone carries whole", () => {
    const spans = madeSpans();
    const server = spanRecord(spans.find((span) => span.kind === SpanKind.SERVER) as ReadableSpan);
    const client = spanRecord(spans.find((span) => span.kind === SpanKind.CLIENT) as ReadableSpan);
    expect(structuredClone(server)).toEqual(server);
    expect(structuredClone(client)).toEqual(client);
    expect(server.parent).toMatchObject({ spanId: "b7ad6b7169203331", isRemote: true });
    expect(server.context.traceState).toBe("vendor=a,other=b");
    expect(server.attributes).toMatchObject({ ok: true, ratio: 0.25, tags: ["a", "б"] });
    expect(client.links[0]).toMatchObject({
      context: { spanId: server.context.spanId },
      attributes: { why: "retry" },
    });
    expect(client.events[0]?.name).toBe("gen_ai.first_byte");
    expect(client.status).toEqual({ code: SpanStatusCode.ERROR, message: "upstream_timeout" });
  });

  it("sends the very bytes the SDK's own exporter sends in-process", async () => {
    const spans = madeSpans();
    const url = `${otlp.url}/v1/traces`;
    const before = otlp.payloads.length;
    const inProcess = new OTLPTraceExporter({ url });
    expect((await exported(inProcess, spans)).code).toBe(ExportResultCode.SUCCESS);
    await inProcess.shutdown();
    const worker = new WorkerSpanExporter(setupFor(url), () => {});
    expect((await exported(worker, spans)).code).toBe(ExportResultCode.SUCCESS);
    await worker.shutdown();
    const [own, ours] = otlp.payloads.slice(before);
    expect(own?.contentType).toBe("application/x-protobuf");
    expect(ours?.contentType).toBe(own?.contentType);
    expect(ours?.body.length).toBeGreaterThan(200);
    expect(ours?.body.equals(own?.body as Buffer)).toBe(true);
  });

  it("reports a collector that is away as a failed export, with the SDK's messages passed on", async () => {
    const messages: string[] = [];
    const away = `http://127.0.0.1:${await freePort()}/v1/traces`;
    // The exporter in the worker reads the standard variables, as in-process: a short timeout for the test.
    process.env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT = "500";
    const worker = new WorkerSpanExporter({ ...setupFor(away), logLevel: 99 }, (level, message) =>
      messages.push(`${level} ${message}`),
    );
    const result = await exported(worker, madeSpans());
    delete process.env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT;
    await worker.shutdown();
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(result.error?.message).toMatch(/ECONNREFUSED|connect/i);
    expect(messages.length).toBeGreaterThan(0);
  });

  it("fails the batch of a worker that is lost, and exports the next batch with a new one", async () => {
    // A URL the exporter's constructor refuses: the worker fails before it can answer.
    const lost = new WorkerSpanExporter(setupFor("not a url"), () => {});
    const first = await exported(lost, madeSpans());
    expect(first.code).toBe(ExportResultCode.FAILED);
    expect(first.error?.message).toMatch(/span export worker (failed|exited)/);
    await lost.shutdown();

    const before = otlp.payloads.length;
    const worker = new WorkerSpanExporter(setupFor(`${otlp.url}/v1/traces`), () => {});
    expect((await exported(worker, madeSpans())).code).toBe(ExportResultCode.SUCCESS);
    expect((await exported(worker, madeSpans())).code).toBe(ExportResultCode.SUCCESS);
    await worker.shutdown();
    expect(otlp.payloads.length - before).toBe(2);
  });

  it("exports nothing after its shutdown", async () => {
    const worker = new WorkerSpanExporter(setupFor(`${otlp.url}/v1/traces`), () => {});
    await worker.shutdown();
    const result = await exported(worker, madeSpans());
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(result.error?.message).toBe("the span exporter is shut down");
  });
});
