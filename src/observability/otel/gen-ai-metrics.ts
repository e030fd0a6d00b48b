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

import type { Attributes, Histogram, Meter } from "@opentelemetry/api";
import type { GatewayRequest } from "../../core/request.js";
import { SeriesCap } from "../series-cap.js";
import { ATTR, GEN_AI_METRICS, operationOf } from "./gen-ai.js";

export interface GenAiMetricOptions {
  provider: string;
  server: { address: string; port: number };
  maxModelSeries: number;
}

type Definition = (typeof GEN_AI_METRICS)[keyof typeof GEN_AI_METRICS];

export class GenAiMetrics {
  private readonly tokens: Histogram;
  private readonly duration: Histogram;
  private readonly firstToken: Histogram;
  private readonly perOutputToken: Histogram;
  private readonly models: SeriesCap;

  constructor(
    meter: Meter,
    private readonly options: GenAiMetricOptions,
  ) {
    const histogram = (definition: Definition) =>
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

  /** A forwarded request ended. */
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
    const failure = failureOf(request);
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
    // Streams only: a whole answer's first bytes are its last.
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

/** error.type of a forwarded request that failed: how the exchange failed, or the model server's status. */
function failureOf(request: GatewayRequest): string | null {
  if (request.outcome !== "completed") return request.code ?? request.outcome;
  return request.status >= 400 ? String(request.status) : null;
}
