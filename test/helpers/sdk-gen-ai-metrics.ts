// The GenAI metrics as the gateway recorded them before it aggregated them itself (commit 3d493d3 replaced
// this): into the OpenTelemetry SDK's Histogram instruments, a fresh attributes object per record. Kept as the
// reference the metric producer (src/observability/otel/gen-ai-metrics.ts) must export the same data as
// (test/observability/otel/gen-ai-metrics.test.ts), and whose cost bench/gen-ai-metrics-cost.ts compares.

import type { Attributes, Histogram, Meter } from "@opentelemetry/api";
import type { GatewayRequest } from "../../src/core/request.js";
import { ATTR, GEN_AI_METRICS, operationOf } from "../../src/observability/otel/gen-ai.js";
import type { GenAiMetricOptions } from "../../src/observability/otel/gen-ai-metrics.js";
import { SeriesCap } from "../../src/observability/series-cap.js";

/**
 * The GenAI metrics as the gateway recorded them before the producer, into the SDK's Histogram instruments:
 * the reference the producer must export the same data as.
 */
export class SdkGenAiMetrics {
  private readonly tokens: Histogram;
  private readonly duration: Histogram;
  private readonly firstToken: Histogram;
  private readonly perOutputToken: Histogram;
  private readonly models: SeriesCap;

  constructor(
    meter: Meter,
    private readonly options: Omit<GenAiMetricOptions, "scope" | "temporality" | "now">,
  ) {
    const histogram = (definition: (typeof GEN_AI_METRICS)[keyof typeof GEN_AI_METRICS]) =>
      meter.createHistogram(definition.name, {
        unit: definition.unit,
        description: definition.description,
        advice: { explicitBucketBoundaries: [...definition.buckets] },
      });
    this.tokens = histogram(GEN_AI_METRICS.tokenUsage);
    this.duration = histogram(GEN_AI_METRICS.operationDuration);
    this.firstToken = histogram(GEN_AI_METRICS.timeToFirstToken);
    this.perOutputToken = histogram(GEN_AI_METRICS.timePerOutputToken);
    this.models = new SeriesCap(options.maxModelSeries);
  }

  record(request: GatewayRequest): void {
    const operation = operationOf(request);
    if (operation === null || request.forwardedAt === 0) return;
    const attributes: Attributes = {
      [ATTR.operation]: operation,
      [ATTR.provider]: this.options.provider,
      [ATTR.serverAddress]: this.options.server.address,
      [ATTR.serverPort]: this.options.server.port,
    };
    if (request.model !== null) attributes[ATTR.requestModel] = this.models.label(request.model);
    const endAt = request.arrivedAt + request.latencyMs;
    const failure =
      request.outcome !== "completed"
        ? (request.code ?? request.outcome)
        : request.status >= 400
          ? String(request.status)
          : null;
    this.duration.record(
      (endAt - request.forwardedAt) / 1000,
      failure === null ? attributes : { ...attributes, [ATTR.errorType]: failure },
    );
    if (request.promptTokens > 0) {
      this.tokens.record(request.promptTokens, { ...attributes, [ATTR.tokenType]: "input" });
    }
    if (request.completionTokens > 0) {
      this.tokens.record(request.completionTokens, { ...attributes, [ATTR.tokenType]: "output" });
    }
    if (failure !== null || request.events === null || request.firstChunkAt === 0) return;
    this.firstToken.record((request.firstChunkAt - request.forwardedAt) / 1000, attributes);
    if (request.completionTokens > 1 && !request.estimated) {
      this.perOutputToken.record(
        (endAt - request.firstChunkAt) / 1000 / (request.completionTokens - 1),
        attributes,
      );
    }
  }
}
