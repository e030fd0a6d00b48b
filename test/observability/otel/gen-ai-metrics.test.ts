// The GenAI semantic-convention metrics, recorded into the OpenTelemetry SDK's own MeterProvider and read by a
// reader as an exporter would (the export over OTLP is test/e2e/telemetry.test.ts): a forwarded request's
// duration (error.type when it failed), its tokens by type, and for a successful stream the time to the first
// token and per output token (not when its counts were estimated); nothing for a request never forwarded or
// of an endpoint that is not GenAI; models beyond the cap folded into "other".

import { AggregationTemporality, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { describe, expect, it } from "vitest";
import { GenAiMetrics } from "../../../src/observability/otel/gen-ai-metrics.js";
import { type RequestFields, requestWith } from "../../helpers/requests.js";

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

type Point = { attributes: Record<string, unknown>; count: number; sum: number };

function metrics(maxModelSeries = 10) {
  const reader = new TestReader();
  const provider = new MeterProvider({ readers: [reader] });
  const genAi = new GenAiMetrics(provider.getMeter("test"), {
    provider: "vllm",
    server: { address: "127.0.0.1", port: 8000 },
    maxModelSeries,
  });
  const read = async (): Promise<Record<string, Point[]>> => {
    const { resourceMetrics } = await reader.collect();
    const out: Record<string, Point[]> = {};
    for (const scope of resourceMetrics.scopeMetrics)
      for (const metric of scope.metrics)
        out[metric.descriptor.name] = metric.dataPoints.map((point) => {
          const value = point.value as { count: number; sum: number };
          return { attributes: point.attributes, count: value.count, sum: value.sum };
        });
    return out;
  };
  return { genAi, read };
}

const BASE = {
  "gen_ai.operation.name": "chat",
  "gen_ai.provider.name": "vllm",
  "server.address": "127.0.0.1",
  "server.port": 8000,
  "gen_ai.request.model": "m",
};

/** A chat completion forwarded 10 ms after arriving and ended 1 010 ms after. */
const forwarded = (fields: RequestFields = {}) =>
  requestWith({
    path: "/v1/chat/completions",
    endpointClass: "generation",
    outcome: "completed",
    status: 200,
    model: "m",
    arrivedAt: 1000,
    forwardedAt: 1010,
    latencyMs: 1010,
    promptTokens: 12,
    completionTokens: 5,
    ...fields,
  });

describe("GenAiMetrics.record", () => {
  it("records a whole answer's duration and its input and output tokens, but no token timings", async () => {
    const { genAi, read } = metrics();
    genAi.record(forwarded());
    const seen = await read();
    expect(seen["gen_ai.client.operation.duration"]).toEqual([{ attributes: BASE, count: 1, sum: 1 }]);
    expect(seen["gen_ai.client.token.usage"]).toEqual([
      { attributes: { ...BASE, "gen_ai.token.type": "input" }, count: 1, sum: 12 },
      { attributes: { ...BASE, "gen_ai.token.type": "output" }, count: 1, sum: 5 },
    ]);
    expect(seen["gen_ai.server.time_to_first_token"] ?? []).toEqual([]);
    expect(seen["gen_ai.server.time_per_output_token"] ?? []).toEqual([]);
  });

  it("records a stream's time to first token and time per output token after the first", async () => {
    const { genAi, read } = metrics();
    genAi.record(forwarded({ events: 6, firstChunkAt: 1210 }));
    const seen = await read();
    expect(seen["gen_ai.server.time_to_first_token"]).toEqual([{ attributes: BASE, count: 1, sum: 0.2 }]);
    // (2010 − 1210) ms over 4 tokens after the first.
    expect(seen["gen_ai.server.time_per_output_token"]).toEqual([{ attributes: BASE, count: 1, sum: 0.2 }]);
  });

  it("leaves out the time per output token when the counts were estimated or there is one token", async () => {
    const { genAi, read } = metrics();
    genAi.record(forwarded({ events: 6, firstChunkAt: 1210, estimated: true }));
    genAi.record(forwarded({ events: 2, firstChunkAt: 1210, completionTokens: 1 }));
    const seen = await read();
    expect(seen["gen_ai.server.time_to_first_token"]?.[0]?.count).toBe(2);
    expect(seen["gen_ai.server.time_per_output_token"] ?? []).toEqual([]);
  });

  it("marks a failed exchange's duration with error.type — how it failed, or the server's status — and no stream timings", async () => {
    const { genAi, read } = metrics();
    genAi.record(forwarded({ outcome: "upstream_timeout", code: null, events: 3, firstChunkAt: 1100 }));
    genAi.record(forwarded({ outcome: "client_aborted", code: "upstream_unavailable" }));
    genAi.record(forwarded({ status: 503, promptTokens: 0, completionTokens: 0 }));
    const seen = await read();
    expect(seen["gen_ai.client.operation.duration"]?.map((p) => p.attributes["error.type"]).sort()).toEqual([
      "503",
      "upstream_timeout",
      "upstream_unavailable",
    ]);
    expect(seen["gen_ai.server.time_to_first_token"] ?? []).toEqual([]);
    expect(seen["gen_ai.client.token.usage"]?.every((p) => p.count === 2)).toBe(true);
  });

  it("records nothing for a request never forwarded, or one that is not a GenAI operation", async () => {
    const { genAi, read } = metrics();
    genAi.record(forwarded({ forwardedAt: 0 }));
    genAi.record(forwarded({ path: "/v1/models", endpointClass: "free" as never }));
    const seen = await read();
    expect(Object.values(seen).flat()).toEqual([]);
  });

  it("names the operation by path, leaves the model out when unknown, and folds models beyond the cap", async () => {
    const { genAi, read } = metrics(1);
    genAi.record(
      forwarded({ path: "/v1/embeddings", endpointClass: "input-only", model: "e", completionTokens: 0 }),
    );
    genAi.record(forwarded({ model: "m2" }));
    genAi.record(forwarded({ model: null }));
    const seen = await read();
    expect(
      seen["gen_ai.client.operation.duration"]?.map((p) => [
        p.attributes["gen_ai.operation.name"],
        p.attributes["gen_ai.request.model"],
      ]),
    ).toEqual([
      ["embeddings", "e"],
      ["chat", "other"],
      ["chat", undefined],
    ]);
  });
});
