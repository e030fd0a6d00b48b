// What the GenAI metrics cost one forwarded request, in-process: the former recording into the SDK's Histogram
// instruments (test/helpers/sdk-gen-ai-metrics.ts) against the gateway's own aggregation handed to the SDK as a
// metric producer (src/observability/otel/gen-ai-metrics.ts). Not part of `npm run bench`; run it alone:
// `npx tsx bench/gen-ai-metrics-cost.ts`.
//
// The requests are as the gateway sees them: a fresh object and a fresh model string per request (parsed from a
// body, so its hash is not cached), a few models, streams and whole answers, some failures; both sides are
// collected by a reader every 10 000 requests, as a periodic export would.

import { performance } from "node:perf_hooks";
import {
  AggregationTemporality,
  InstrumentType,
  MeterProvider,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import { GatewayRequest } from "../src/core/request.js";
import { GenAiMetrics } from "../src/observability/otel/gen-ai-metrics.js";
import { SdkGenAiMetrics } from "../test/helpers/sdk-gen-ai-metrics.js";

const REQUESTS = 200_000;
const ROUNDS = 5;
const COLLECT_EVERY = 10_000;
const OPTIONS = { provider: "vllm", server: { address: "127.0.0.1", port: 8000 }, maxModelSeries: 100 };
const MODELS = ["demo-small", "demo-large", "qwen3-8b", "llama-3.1-70b"];

class Reader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

function requestOf(i: number): GatewayRequest {
  const body = JSON.parse(`{"model":"${MODELS[i % MODELS.length]}"}`) as { model: string };
  const stream = i % 3 !== 0;
  const failed = i % 50 === 0;
  return Object.assign(new GatewayRequest(null, "POST", "/v1/chat/completions", 1_000 + i), {
    endpointClass: "generation" as const,
    model: body.model,
    outcome: "completed" as const,
    status: failed ? 503 : 200,
    forwardedAt: 1_002 + i,
    latencyMs: 800 + (i % 400),
    promptTokens: 20 + (i % 3000),
    completionTokens: failed ? 0 : 1 + (i % 700),
    events: stream ? 10 + (i % 200) : null,
    firstChunkAt: stream ? 1_100 + i + (i % 90) : 0,
  });
}

/** Microseconds per request of `record` over REQUESTS fresh requests, collections included. */
function timed(record: (request: GatewayRequest) => void, collect: () => Promise<unknown>): Promise<number> {
  return (async () => {
    let spent = 0;
    for (let start = 0; start < REQUESTS; start += COLLECT_EVERY) {
      const batch = Array.from({ length: COLLECT_EVERY }, (_, i) => requestOf(start + i));
      const began = performance.now();
      for (const request of batch) record(request);
      spent += performance.now() - began;
      await collect();
    }
    return (spent * 1000) / REQUESTS;
  })();
}

function sdkWay() {
  const reader = new Reader({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  const metrics = new SdkGenAiMetrics(new MeterProvider({ readers: [reader] }).getMeter("bench"), OPTIONS);
  return timed(
    (request) => metrics.record(request),
    () => reader.collect(),
  );
}

function producerWay() {
  const metrics: GenAiMetrics = new GenAiMetrics({
    ...OPTIONS,
    scope: { name: "bench" },
    temporality: (): AggregationTemporality => reader.selectAggregationTemporality(InstrumentType.HISTOGRAM),
  });
  const reader: Reader = new Reader({
    aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE,
    metricProducers: [metrics],
  });
  new MeterProvider({ readers: [reader] });
  return timed(
    (request) => metrics.record(request),
    () => reader.collect(),
  );
}

const sdk: number[] = [];
const producer: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  sdk.push(await sdkWay());
  producer.push(await producerWay());
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.log(
  `GenAI metrics per request: SDK instruments ${median(sdk).toFixed(2)} µs, metric producer ` +
    `${median(producer).toFixed(2)} µs (median of ${ROUNDS} rounds of ${REQUESTS} requests)`,
);
