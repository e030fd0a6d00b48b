// The span exporter the batch processor hands its batches to. It copies each span's fields into a plain record
// and posts the batch to a worker thread (span-export-worker.ts), which serializes and sends it with the OTLP
// exporter of the configured protocol and posts the result back.
//
// Why a thread: the SDK's batch processor exports from inside span.end() — the end of whichever request filled
// the batch — and the OTLP/protobuf serializer is JavaScript. In the gateway under load a batch of 512 spans
// took the main thread 10–40 ms there (docs/benchmarks.md, "Tracing that production can leave on"), during
// which every request waiting on the event loop waited too. Here the main thread does the copy, which keeps
// the span's own objects (attributes, times), and the structured clone of postMessage, which is native.
//
// A worker that fails or exits unasked fails the batches it held (the batch processor reports them, through
// the SDK's diagnostics, as the gateway's log lines) and is started again for the next batch.

import { Worker } from "node:worker_threads";
import type { Attributes, HrTime, Link, SpanContext } from "@opentelemetry/api";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import type { TraceSettings } from "../telemetry-settings.js";

/** A span's context as the worker receives it: the trace state serialized. */
export interface ContextRecord {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote: boolean | undefined;
  traceState: string | undefined;
}

/** What the worker needs of a span to export it: ReadableSpan's fields, with no method or class. */
export interface SpanRecord {
  name: string;
  kind: number;
  context: ContextRecord;
  parent: ContextRecord | undefined;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  attributes: Attributes;
  droppedAttributesCount: number;
  events: { name: string; time: HrTime; attributes?: Attributes; droppedAttributesCount?: number }[];
  droppedEventsCount: number;
  links: { context: ContextRecord; attributes?: Attributes; droppedAttributesCount?: number }[];
  droppedLinksCount: number;
  status: { code: number; message?: string };
  scope: { name: string; version?: string; schemaUrl?: string };
}

/** What the worker starts from (workerData). */
export interface ExportWorkerSetup {
  protocol: TraceSettings["protocol"];
  url: string;
  resource: { attributes: Attributes; schemaUrl: string | undefined };
  /** The SDK's diagnostics level (OTEL_LOG_LEVEL), for the worker's own diag. */
  logLevel: number;
}

/** Messages between the exporter and its worker. */
export type ToWorker =
  | { type: "export"; id: number; spans: SpanRecord[] }
  | { type: "flush"; id: number }
  | { type: "shutdown"; id: number };
export type FromWorker =
  | { type: "done"; id: number; ok: boolean; error: string | undefined }
  | { type: "log"; level: "error" | "warn" | "info" | "debug" | "verbose"; message: string; args: string[] };

/** Where the SDK's diagnostics go (the gateway's logger, through diag). */
export type DiagnosticSink = (
  level: Extract<FromWorker, { type: "log" }>["level"],
  message: string,
  args: string[],
) => void;

/**
 * The worker's module: next to this one in the build. Under the test runner, which starts whole gateways in
 * its own process from src/ (test/helpers/gateway.ts), this module is TypeScript, and a thread cannot load
 * TypeScript: the build's (npm test builds first).
 */
const WORKER_FILE = import.meta.url.endsWith(".ts")
  ? new URL("../../../dist/observability/otel/span-export-worker.js", import.meta.url)
  : new URL("./span-export-worker.js", import.meta.url);

export class WorkerSpanExporter implements SpanExporter {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, (result: { ok: boolean; error: string | undefined }) => void>();
  private next = 0;
  private stopped = false;

  constructor(
    private readonly setup: ExportWorkerSetup,
    private readonly diagnostics: DiagnosticSink,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.stopped) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error("the span exporter is shut down") });
      return;
    }
    const records = spans.map(spanRecord);
    this.ask({ type: "export", id: 0, spans: records }, ({ ok, error }) =>
      resultCallback(
        ok ? { code: ExportResultCode.SUCCESS } : { code: ExportResultCode.FAILED, error: new Error(error) },
      ),
    );
  }

  forceFlush(): Promise<void> {
    if (this.stopped || this.worker === null) return Promise.resolve();
    return new Promise((resolve) => this.ask({ type: "flush", id: 0 }, () => resolve()));
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const worker = this.worker;
    if (worker === null) return;
    await new Promise<void>((resolve) => this.ask({ type: "shutdown", id: 0 }, () => resolve()));
    this.worker = null;
    await worker.terminate();
  }

  private ask(
    message: ToWorker,
    answered: (result: { ok: boolean; error: string | undefined }) => void,
  ): void {
    const id = this.next++;
    this.waiting.set(id, answered);
    this.started().postMessage({ ...message, id });
  }

  private started(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(WORKER_FILE, { workerData: this.setup });
    // Never what keeps the process alive: shutdown() sends what is left and ends it.
    worker.unref();
    worker.on("message", (message: FromWorker) => {
      if (message.type === "log") {
        this.diagnostics(message.level, message.message, message.args);
        return;
      }
      const answered = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      answered?.({ ok: message.ok, error: message.error });
    });
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const held = [...this.waiting.values()];
      this.waiting.clear();
      for (const answered of held) answered({ ok: false, error: why });
    };
    worker.on("error", (error) => lost(`the span export worker failed: ${error.message}`));
    worker.on("exit", (code) => lost(`the span export worker exited (code ${code})`));
    this.worker = worker;
    return worker;
  }
}

function contextRecord(context: SpanContext): ContextRecord {
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    traceFlags: context.traceFlags,
    isRemote: context.isRemote,
    traceState: context.traceState?.serialize(),
  };
}

function linkRecord(link: Link): SpanRecord["links"][number] {
  return {
    context: contextRecord(link.context),
    attributes: link.attributes,
    droppedAttributesCount: link.droppedAttributesCount,
  };
}

/** A span's fields as the OTLP serializers read them (ReadableSpan), as plain data. */
export function spanRecord(span: ReadableSpan): SpanRecord {
  const scope = span.instrumentationScope;
  return {
    name: span.name,
    kind: span.kind,
    context: contextRecord(span.spanContext()),
    parent: span.parentSpanContext === undefined ? undefined : contextRecord(span.parentSpanContext),
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    attributes: span.attributes,
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events,
    droppedEventsCount: span.droppedEventsCount,
    links: span.links.length === 0 ? [] : span.links.map(linkRecord),
    droppedLinksCount: span.droppedLinksCount,
    status: span.status,
    scope: { name: scope.name, version: scope.version, schemaUrl: scope.schemaUrl },
  };
}
