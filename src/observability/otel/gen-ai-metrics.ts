// The GenAI semantic-convention metrics, fed by the observer from the same request the Prometheus metrics are
// (a sink of the observer, not call sites of their own), and exported over OTLP beside the Prometheus endpoint:
//
// - gen_ai.client.token.usage: the tokens each forwarded request was charged for (the billable counts, as the
//   conventions ask), by gen_ai.token.type input and output;
// - gen_ai.client.operation.duration: the exchange with the model server, from forwarding to the response's
//   end, with error.type when it failed;
// - gen_ai.server.time_to_first_token: for a successful stream, forwarding to the stream's first bytes;
// - gen_ai.server.time_per_output_token: for a successful stream with reported usage, the rest of the stream
//   over the output tokens after the first.
//
// Models are bounded as on the Prometheus side: beyond metrics.maxModelSeries they fold into "other".
//
// The histograms are aggregated here and handed to the SDK as a metric producer of its reader, not recorded
// into the SDK's Histogram instruments: those hash every record's attributes (a sorted JSON string, looked up
// per storage), which a CPU profile put at ~55 µs of every traced request for these 3–4 records. Here a
// request finds its series by operation and model label in two Map lookups and records numbers
// (histogram-series.ts); what is exported is the same as the SDK's, cumulative or delta as the exporter
// prefers (test/observability/otel/gen-ai-metrics.test.ts holds both equal).

import type { Attributes } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import { emptyResource } from "@opentelemetry/resources";
import type {
  AggregationTemporality,
  CollectionResult,
  MetricData,
  MetricProducer,
} from "@opentelemetry/sdk-metrics";
import type { GatewayRequest } from "../../core/request.js";
import { SeriesCap } from "../series-cap.js";
import { ATTR, GEN_AI_METRICS, operationOf } from "./gen-ai.js";
import { HistogramMetric, type HistogramSeries } from "./histogram-series.js";

export interface GenAiMetricOptions {
  provider: string;
  server: { address: string; port: number };
  maxModelSeries: number;
  /** The instrumentation scope the metrics are reported under, as a meter's would be. */
  scope: InstrumentationScope;
  /**
   * The reader's temporality for histograms, asked at the first collection and kept, as the SDK asks its
   * reader once per metric (the OTLP exporters answer from OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE).
   */
  temporality: () => AggregationTemporality;
  /** Milliseconds since the epoch, for the points' start and end times. */
  now?: () => number;
}

/** The series of one operation and model label, made at its first request. */
interface Series {
  attributes: Attributes;
  duration: HistogramSeries;
  /** The duration of the failed, by error.type (a status as its number: no string made per request). */
  failed: Map<string | number, HistogramSeries>;
  inputTokens: HistogramSeries;
  outputTokens: HistogramSeries;
  firstToken: HistogramSeries;
  perOutputToken: HistogramSeries;
}

export class GenAiMetrics implements MetricProducer {
  private readonly tokens: HistogramMetric;
  private readonly duration: HistogramMetric;
  private readonly firstToken: HistogramMetric;
  private readonly perOutputToken: HistogramMetric;
  private readonly models: SeriesCap;
  /** By operation, then model label (null when the request named none). */
  private readonly series = new Map<string, Map<string | null, Series>>();
  private readonly now: () => number;
  private temporality: AggregationTemporality | null = null;
  private lastCollection: number;

  constructor(private readonly options: GenAiMetricOptions) {
    this.now = options.now ?? Date.now;
    this.lastCollection = this.now();
    this.tokens = new HistogramMetric(GEN_AI_METRICS.tokenUsage, this.now);
    this.duration = new HistogramMetric(GEN_AI_METRICS.operationDuration, this.now);
    this.firstToken = new HistogramMetric(GEN_AI_METRICS.timeToFirstToken, this.now);
    this.perOutputToken = new HistogramMetric(GEN_AI_METRICS.timePerOutputToken, this.now);
    this.models = new SeriesCap(options.maxModelSeries);
  }

  /** A forwarded request ended. */
  record(request: GatewayRequest): void {
    const operation = operationOf(request);
    if (operation === null || request.forwardedAt === 0) return;
    const series = this.seriesOf(operation, request.model === null ? null : this.models.label(request.model));
    const endAt = request.arrivedAt + request.latencyMs;
    const failure = failureOf(request);
    const duration = failure === null ? series.duration : this.failedSeries(series, failure);
    duration.record((endAt - request.forwardedAt) / 1000);
    if (request.promptTokens > 0) series.inputTokens.record(request.promptTokens);
    if (request.completionTokens > 0) series.outputTokens.record(request.completionTokens);
    // Streams only: a whole answer's first bytes are its last.
    if (failure !== null || request.events === null || request.firstChunkAt === 0) return;
    series.firstToken.record((request.firstChunkAt - request.forwardedAt) / 1000);
    if (request.completionTokens > 1 && !request.estimated) {
      series.perOutputToken.record((endAt - request.firstChunkAt) / 1000 / (request.completionTokens - 1));
    }
  }

  /** The metrics recorded, as the reader collects them for an export. */
  async collect(): Promise<CollectionResult> {
    this.temporality ??= this.options.temporality();
    const collectedAt = this.now();
    const metrics: MetricData[] = [];
    // In the order the SDK reports its instruments: the order they were made.
    for (const metric of [this.tokens, this.duration, this.firstToken, this.perOutputToken]) {
      const data = metric.collect(this.temporality, collectedAt, this.lastCollection);
      if (data !== null) metrics.push(data);
    }
    this.lastCollection = collectedAt;
    return {
      // The reader keeps its MeterProvider's resource and takes only the scope metrics.
      resourceMetrics: {
        resource: emptyResource(),
        scopeMetrics: metrics.length === 0 ? [] : [{ scope: this.options.scope, metrics }],
      },
      errors: [],
    };
  }

  private seriesOf(operation: string, model: string | null): Series {
    let byModel = this.series.get(operation);
    if (byModel === undefined) {
      byModel = new Map();
      this.series.set(operation, byModel);
    }
    let series = byModel.get(model);
    if (series === undefined) {
      series = this.newSeries(operation, model);
      byModel.set(model, series);
    }
    return series;
  }

  private newSeries(operation: string, model: string | null): Series {
    const attributes: Attributes = {
      [ATTR.operation]: operation,
      [ATTR.provider]: this.options.provider,
      [ATTR.serverAddress]: this.options.server.address,
      [ATTR.serverPort]: this.options.server.port,
    };
    if (model !== null) attributes[ATTR.requestModel] = model;
    return {
      attributes,
      duration: this.duration.seriesOf(attributes),
      failed: new Map(),
      inputTokens: this.tokens.seriesOf({ ...attributes, [ATTR.tokenType]: "input" }),
      outputTokens: this.tokens.seriesOf({ ...attributes, [ATTR.tokenType]: "output" }),
      firstToken: this.firstToken.seriesOf(attributes),
      perOutputToken: this.perOutputToken.seriesOf(attributes),
    };
  }

  private failedSeries(series: Series, failure: string | number): HistogramSeries {
    let failed = series.failed.get(failure);
    if (failed === undefined) {
      failed = this.duration.seriesOf({ ...series.attributes, [ATTR.errorType]: String(failure) });
      series.failed.set(failure, failed);
    }
    return failed;
  }
}

/** error.type of a forwarded request that failed: how the exchange failed, or the model server's status. */
function failureOf(request: GatewayRequest): string | number | null {
  if (request.outcome !== "completed") return request.code ?? request.outcome;
  return request.status >= 400 ? request.status : null;
}
