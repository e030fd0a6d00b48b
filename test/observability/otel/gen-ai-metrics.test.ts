// The GenAI semantic-convention metrics, aggregated by the gateway and handed as a metric producer to a reader
// of the OpenTelemetry SDK's own MeterProvider, read as an exporter would (the export over OTLP is
// test/e2e/telemetry.test.ts): a forwarded request's duration (error.type when it failed), its tokens by type,
// and for a successful stream the time to the first token and per output token (not when its counts were
// estimated); nothing for a request never forwarded or of an endpoint that is not GenAI; models beyond the cap
// folded into "other". And the proof that the producer exports what the SDK's own Histogram instruments
// exported for the same requests, cumulative and delta: random request sequences recorded both ways, collected
// through real readers with in-memory exporters, equal point for point, timestamps included.

import type { Attributes } from "@opentelemetry/api";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  InstrumentType,
  MeterProvider,
  MetricReader,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { GatewayRequest } from "../../../src/core/request.js";
import { GEN_AI_METRICS } from "../../../src/observability/otel/gen-ai.js";
import { GenAiMetrics } from "../../../src/observability/otel/gen-ai-metrics.js";
import { type RequestFields, requestWith } from "../../helpers/requests.js";
import { SdkGenAiMetrics } from "../../helpers/sdk-gen-ai-metrics.js";

class TestReader extends MetricReader {
  constructor(genAi: GenAiMetrics) {
    super({
      aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE,
      metricProducers: [genAi],
    });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

type Point = { attributes: Record<string, unknown>; count: number; sum: number };

const SERVER = { provider: "vllm", server: { address: "127.0.0.1", port: 8000 } };

function metrics(maxModelSeries = 10) {
  const genAi: GenAiMetrics = new GenAiMetrics({
    ...SERVER,
    maxModelSeries,
    scope: { name: "test" },
    temporality: (): AggregationTemporality => reader.selectAggregationTemporality(InstrumentType.HISTOGRAM),
  });
  const reader = new TestReader(genAi);
  new MeterProvider({ readers: [reader] });
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

const SCOPE = { name: "tunnel-gateway", version: "1.2.3", schemaUrl: undefined };
const MAX_MODELS = 2;

/** A reader exporting to memory, as the gateway's exports over OTLP, with the temporality given. */
function exportingReader(temporality: AggregationTemporality, producer?: GenAiMetrics) {
  const exporter = new InMemoryMetricExporter(temporality);
  const reader = new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: 2 ** 31 - 1,
    ...(producer === undefined ? {} : { metricProducers: [producer] }),
  });
  /** What an export sends now (the reader sends nothing when there is nothing: then an empty list). */
  const exported = async () => {
    const before = exporter.getMetrics().length;
    await reader.forceFlush();
    const all = exporter.getMetrics();
    return all.length === before ? [] : normalized(all[all.length - 1] as ResourceMetrics);
  };
  return { reader, exported };
}

/** Both ways of recording, each with its own MeterProvider and exporting reader. */
function bothWays(temporality: AggregationTemporality) {
  const sdk = exportingReader(temporality);
  const sdkProvider = new MeterProvider({ readers: [sdk.reader] });
  const reference = new SdkGenAiMetrics(sdkProvider.getMeter(SCOPE.name, SCOPE.version), {
    ...SERVER,
    maxModelSeries: MAX_MODELS,
  });
  const producer: GenAiMetrics = new GenAiMetrics({
    ...SERVER,
    maxModelSeries: MAX_MODELS,
    scope: SCOPE,
    temporality: (): AggregationTemporality =>
      ours.reader.selectAggregationTemporality(InstrumentType.HISTOGRAM),
  });
  const ours = exportingReader(temporality, producer);
  const oursProvider = new MeterProvider({ readers: [ours.reader] });
  return {
    record(request: GatewayRequest) {
      reference.record(request);
      producer.record(request);
    },
    exported: () => Promise.all([sdk.exported(), ours.exported()]),
    shutdown: () => Promise.all([sdkProvider.shutdown(), oursProvider.shutdown()]),
  };
}

/**
 * The exported data as OTLP carries it: scopes, metrics with their descriptor's public fields (the SDK's also
 * holds the instrument's type and advice, which no exporter reads), points with their times, sorted by attributes (delta reports series in the order they were recorded in the interval, the producer in
 * the order they were first recorded at all: both are unordered sets in OTLP).
 */
function normalized(resourceMetrics: ResourceMetrics) {
  return resourceMetrics.scopeMetrics.map((scope) => ({
    scope: scope.scope,
    metrics: scope.metrics.map((metric) => ({
      descriptor: {
        name: metric.descriptor.name,
        unit: metric.descriptor.unit,
        description: metric.descriptor.description,
        valueType: metric.descriptor.valueType,
      },
      temporality: metric.aggregationTemporality,
      type: metric.dataPointType,
      points: metric.dataPoints
        .map(({ attributes, startTime, endTime, value }) => ({ attributes, startTime, endTime, value }))
        .sort((a, b) => sortKey(a.attributes).localeCompare(sortKey(b.attributes))),
    })),
  }));
}
const sortKey = (attributes: Attributes) => JSON.stringify(Object.entries(attributes).sort());

/** Requests as the observer sees them end: any mix of forwarded or not, GenAI or not, failed, streamed. */
const requests: fc.Arbitrary<GatewayRequest> = fc
  .record({
    path: fc.constantFrom("/v1/chat/completions", "/v1/embeddings", "/rerank", "/custom", "/v1/models", null),
    endpointClass: fc.constantFrom("generation", "generation", "input-only", "free", "other") as fc.Arbitrary<
      NonNullable<RequestFields["endpointClass"]>
    >,
    // More models than the cap admits.
    model: fc.constantFrom("a", "b", "c", "d", null),
    outcome: fc.constantFrom("completed", "completed", "completed", "upstream_timeout", "client_aborted"),
    code: fc.constantFrom(null, null, "upstream_unavailable"),
    status: fc.constantFrom(200, 200, 200, 400, 429, 503),
    arrivedAt: fc.integer({ min: 1, max: 1e6 }),
    forwarded: fc.option(fc.integer({ min: 0, max: 50 }), { freq: 5 }),
    latencyMs: fc.double({ min: 0, max: 200_000, noNaN: true }),
    promptTokens: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 70_000_000 })),
    completionTokens: fc.oneof(fc.constantFrom(0, 1, 2), fc.integer({ min: 0, max: 100_000 })),
    events: fc.option(fc.integer({ min: 1, max: 1000 })),
    // May fall before the forwarding: a negative time, which a histogram drops.
    firstChunk: fc.option(fc.double({ min: -10, max: 100_000, noNaN: true })),
    estimated: fc.boolean(),
  })
  .map(({ forwarded, firstChunk, ...fields }) =>
    requestWith({
      ...fields,
      outcome: fields.outcome as RequestFields["outcome"],
      code: fields.code as RequestFields["code"],
      forwardedAt: forwarded === null ? 0 : fields.arrivedAt + forwarded,
      firstChunkAt: firstChunk === null ? 0 : fields.arrivedAt + firstChunk,
    }),
  );

/** Runs of requests with collections between them. */
/** Runs of requests with collections between them, each step some milliseconds after the one before. */
const runs = fc.array(
  fc.tuple(
    fc.oneof({ arbitrary: requests, weight: 4 }, { arbitrary: fc.constant("collect" as const), weight: 1 }),
    fc.nat({ max: 5_000 }),
  ),
  // Long enough for series recorded over several intervals, which delta's start times depend on.
  { maxLength: 60, size: "max" },
);

describe("GenAiMetrics as a metric producer", () => {
  for (const [name, temporality] of [
    ["cumulative", AggregationTemporality.CUMULATIVE],
    ["delta", AggregationTemporality.DELTA],
  ] as const) {
    it(`exports, ${name}, the same data as the SDK's Histogram instruments for the same requests`, async () => {
      await fc.assert(
        fc.asyncProperty(runs, async (steps) => {
          // The SDK reads Date.now() for its start and end times, and so does the producer: a clock both
          // read, moved by the run, lets the timestamps be compared too.
          vi.useFakeTimers({ toFake: ["Date"], now: Date.UTC(2026, 10, 29) });
          const ways = bothWays(temporality);
          try {
            const last = [["collect", 1_000] as const, ["collect", 0] as const];
            for (const [step, after] of [...steps, ...last]) {
              vi.advanceTimersByTime(after);
              if (step !== "collect") {
                ways.record(step);
                continue;
              }
              const [sdk, ours] = await ways.exported();
              expect(ours).toEqual(sdk);
            }
          } finally {
            await ways.shutdown();
            vi.useRealTimers();
          }
        }),
        { numRuns: 150 },
      );
    });
  }

  it("exports the temporality its reader's exporter prefers, with start times as the SDK's", async () => {
    let now = 1_000_000;
    const delta: GenAiMetrics = new GenAiMetrics({
      ...SERVER,
      maxModelSeries: MAX_MODELS,
      scope: SCOPE,
      temporality: (): AggregationTemporality =>
        reader.selectAggregationTemporality(InstrumentType.HISTOGRAM),
      now: () => now,
    });
    const reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.DELTA),
      exportIntervalMillis: 2 ** 31 - 1,
      metricProducers: [delta],
    });
    const provider = new MeterProvider({ readers: [reader] });
    const duration = async () => {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics[0]?.metrics.find(
        (m) => m.descriptor.name === GEN_AI_METRICS.operationDuration.name,
      );
      return (
        metric && {
          temporality: metric.aggregationTemporality,
          starts: metric.dataPoints.map((p) => p.startTime),
        }
      );
    };
    now = 1_000_500;
    delta.record(forwarded());
    now = 1_001_000;
    expect(await duration()).toEqual({
      temporality: AggregationTemporality.DELTA,
      starts: [[1000, 500_000_000]],
    });
    now = 1_002_000;
    delta.record(forwarded());
    now = 1_003_000;
    // Reported by the previous collection: starts there.
    expect(await duration()).toEqual({ temporality: AggregationTemporality.DELTA, starts: [[1001, 0]] });
    now = 1_004_000;
    // Nothing recorded since: no point, as the SDK omits a series with no new records.
    expect(await duration()).toBeUndefined();
    await provider.shutdown();
  });
});
