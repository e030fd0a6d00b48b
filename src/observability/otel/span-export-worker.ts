// The worker thread that serializes and sends the gateway's spans (worker-span-exporter.ts says why): it
// rebuilds each span the main thread posted as the ReadableSpan the OTLP exporters read, exports each batch
// with the exporter of the configured protocol (its module loaded only when chosen; gRPC's is the heaviest),
// and answers with the result. The SDK's diagnostics here go to the main thread, which writes them as the
// gateway's log lines.

import { parentPort, workerData } from "node:worker_threads";
import { createTraceState, type DiagLogger, diag, type SpanContext } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import { type Resource, resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import type {
  ContextRecord,
  ExportWorkerSetup,
  FromWorker,
  SpanRecord,
  ToWorker,
} from "./worker-span-exporter.js";

const port = parentPort;
if (port === null) throw new Error("span-export-worker.js runs as a worker thread");
const setup = workerData as ExportWorkerSetup;

const post = (message: FromWorker) => port.postMessage(message);
const line =
  (level: Extract<FromWorker, { type: "log" }>["level"]) =>
  (message: string, ...args: unknown[]) =>
    post({ type: "log", level, message, args: args.map(String) });
const logger: DiagLogger = {
  error: line("error"),
  warn: line("warn"),
  info: line("info"),
  debug: line("debug"),
  verbose: line("verbose"),
};
diag.setLogger(logger, { logLevel: setup.logLevel, suppressOverrideMessage: true });

/** The exporter of the configured protocol. */
async function spanExporter({ protocol, url }: ExportWorkerSetup): Promise<SpanExporter> {
  if (protocol === "grpc") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-grpc");
    return new OTLPTraceExporter({ url });
  }
  if (protocol === "http/json") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    return new OTLPTraceExporter({ url });
  }
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter({ url });
}

const exporter = spanExporter(setup);
// One resource for every span, and one scope object per scope: the serializers group spans by their identity.
const resource: Resource = resourceFromAttributes(setup.resource.attributes, {
  schemaUrl: setup.resource.schemaUrl,
});
const scopes = new Map<string, InstrumentationScope>();

function context(record: ContextRecord): SpanContext {
  const { traceState, ...rest } = record;
  return traceState === undefined ? rest : { ...rest, traceState: createTraceState(traceState) };
}

function readable(record: SpanRecord): ReadableSpan {
  const scopeKey = `${record.scope.name}@${record.scope.version ?? ""}@${record.scope.schemaUrl ?? ""}`;
  let scope = scopes.get(scopeKey);
  if (scope === undefined) {
    scope = record.scope;
    scopes.set(scopeKey, scope);
  }
  const spanContext = context(record.context);
  return {
    name: record.name,
    kind: record.kind,
    spanContext: () => spanContext,
    parentSpanContext: record.parent === undefined ? undefined : context(record.parent),
    startTime: record.startTime,
    endTime: record.endTime,
    duration: record.duration,
    ended: true,
    status: record.status,
    attributes: record.attributes,
    links: record.links.map((link) => ({ ...link, context: context(link.context) })),
    events: record.events,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: record.droppedAttributesCount,
    droppedEventsCount: record.droppedEventsCount,
    droppedLinksCount: record.droppedLinksCount,
  };
}

async function handle(message: ToWorker): Promise<void> {
  const target = await exporter;
  try {
    if (message.type === "export") {
      const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
        target.export(message.spans.map(readable), resolve),
      );
      post({ type: "done", id: message.id, ok: result.code === 0, error: result.error?.message });
    } else {
      await (message.type === "flush" ? target.forceFlush?.() : target.shutdown());
      post({ type: "done", id: message.id, ok: true, error: undefined });
    }
  } catch (error) {
    post({ type: "done", id: message.id, ok: false, error: (error as Error).message });
  }
}

port.on("message", (message: ToWorker) => void handle(message));
