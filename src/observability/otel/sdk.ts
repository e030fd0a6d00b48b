// The OpenTelemetry SDK, started from the settings the OTEL_* variables gave (telemetry-settings.ts); loaded
// only by telemetry.ts's dynamic import, so only when a signal is on. Built from the SDK's pieces — a tracer
// provider with a batch processor and the configured sampler whose exporter runs in a worker thread, a meter
// provider with a periodic reader to which the gateway's GenAI metrics are a metric producer, the OTLP exporter
// of the configured protocol — rather than sdk-node with auto-instrumentation: the gateway makes its own spans
// from its request record, and patching http would cost every request. Nothing is registered globally but the
// SDK's diagnostics logger (to pino): the gateway uses its tracer and its metric producer directly.

import { type DiagLogger, DiagLogLevel, diag } from "@opentelemetry/api";
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from "@opentelemetry/resources";
import {
  type AggregationTemporality,
  InstrumentType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from "@opentelemetry/sdk-metrics";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type { Logger } from "pino";
import type { Telemetry, TelemetryOptions } from "../telemetry.js";
import type { MetricSettings, TelemetrySettings, TraceSettings } from "../telemetry-settings.js";
import { serverOf } from "./gen-ai.js";
import { GenAiMetrics } from "./gen-ai-metrics.js";
import { RequestSpanSink } from "./request-spans.js";
import { WorkerSpanExporter } from "./worker-span-exporter.js";

const SCOPE = "tunnel-gateway";

const LOG_LEVELS: Record<TelemetrySettings["logLevel"], DiagLogLevel> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
};
/** The longest a shutdown waits for the last export: a collector that is away must not hold the exit. */
const SHUTDOWN_MS = 5000;

export async function startOpenTelemetry(
  settings: TelemetrySettings,
  options: TelemetryOptions,
): Promise<Telemetry> {
  const sdkLog = diagnostics(options.logger);
  diag.setLogger(sdkLog, {
    logLevel: LOG_LEVELS[settings.logLevel],
    suppressOverrideMessage: true,
  });
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": SCOPE, "service.version": options.version }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over ours.
    .merge(detectResources({ detectors: [envDetector] }));
  const server = serverOf(options.upstreamUrl);
  const common = { provider: options.provider, server };

  let tracerProvider: TracerProvider | null = null;
  let spans: RequestSpanSink | null = null;
  if (settings.traces !== null) {
    const traces = settings.traces;
    await resource.waitForAsyncAttributes?.();
    // Serialized and sent by a worker thread, off the event loop (worker-span-exporter.ts).
    const exporter = new WorkerSpanExporter(
      {
        protocol: traces.protocol,
        url: traces.url,
        resource: { attributes: resource.attributes, schemaUrl: resource.schemaUrl },
        logLevel: LOG_LEVELS[settings.logLevel],
      },
      (level, message, args) => sdkLog[level](message, ...args),
    );
    tracerProvider = new TracerProvider({
      resource,
      sampler: samplerOf(traces),
      spanProcessors: [new BatchSpanProcessor({ exporter, ...traces.batch })],
    });
    spans = new RequestSpanSink(tracerProvider.getTracer(SCOPE, options.version), {
      ...common,
      propagate: traces.propagate,
    });
  }

  let meterProvider: MeterProvider | null = null;
  let metrics: GenAiMetrics | null = null;
  if (settings.metrics !== null) {
    const { intervalMillis, timeoutMillis } = settings.metrics;
    // The GenAI histograms are aggregated by the gateway and handed to the reader as a metric producer
    // (gen-ai-metrics.ts says why); the meter provider gives the reader its resource and collections.
    const genAi: GenAiMetrics = new GenAiMetrics({
      ...common,
      maxModelSeries: options.maxModelSeries,
      scope: { name: SCOPE, version: options.version, schemaUrl: undefined },
      // The reader answers as its exporter prefers; asked at the first collection, when `reader` is set.
      temporality: (): AggregationTemporality =>
        reader.selectAggregationTemporality(InstrumentType.HISTOGRAM),
    });
    const reader = new PeriodicExportingMetricReader({
      exporter: await metricExporter(settings.metrics),
      exportIntervalMillis: intervalMillis,
      exportTimeoutMillis: Math.min(timeoutMillis, intervalMillis),
      metricProducers: [genAi],
    });
    meterProvider = new MeterProvider({ resource, readers: [reader] });
    metrics = genAi;
  }

  options.logger.info(
    {
      traces: settings.traces && { protocol: settings.traces.protocol, sampler: settings.traces.sampler },
      metrics: settings.metrics && { protocol: settings.metrics.protocol },
    },
    "OpenTelemetry export on",
  );
  return {
    tracing: spans,
    finished(request) {
      spans?.finished(request);
      metrics?.record(request);
    },
    refused(request) {
      spans?.refused(request);
    },
    async shutdown() {
      const stopping = Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([stopping, new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_MS)))]);
      clearTimeout(timer);
    },
  };
}

function samplerOf(traces: TraceSettings): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(traces.ratio);
  switch (traces.sampler) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratio();
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratio() });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

async function metricExporter(metrics: MetricSettings): Promise<PushMetricExporter> {
  const config = { url: metrics.url };
  if (metrics.protocol === "grpc") {
    const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-grpc");
    return new OTLPMetricExporter(config);
  }
  if (metrics.protocol === "http/json") {
    const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-http");
    return new OTLPMetricExporter(config);
  }
  const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-proto");
  return new OTLPMetricExporter(config);
}

/** The SDK's own messages (an export that failed, a bad attribute) as log lines of the gateway's logger. */
function diagnostics(logger: Logger): DiagLogger {
  const log = logger.child({ component: "opentelemetry" });
  const line =
    (level: "error" | "warn" | "info" | "debug" | "trace") =>
    (message: string, ...args: unknown[]) =>
      log[level](args.length > 0 ? { args: args.map(String) } : {}, message);
  return {
    error: line("error"),
    warn: line("warn"),
    info: line("info"),
    debug: line("debug"),
    verbose: line("trace"),
  };
}
