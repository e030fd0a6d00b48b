// What metrics add to each forwarded request, measured in-process: the calls the gateway makes on Metrics for
// one request (two Redis timings, the finished request, the settled balances), per-key series on, in a loop.
// End-to-end runs on a shared 2-core machine vary by more than this whole cost, so it is measured here alone.

import { performance } from "node:perf_hooks";
import { GatewayRequest } from "../src/core/request.js";
import { Metrics } from "../src/observability/metrics.js";

const WARM_UP = 200_000;
const ITERATIONS = 500_000;

/** Microseconds of CPU that metrics cost one forwarded request. */
export function metricsMicrosPerRequest(): number {
  const metrics = new Metrics(
    { perKey: true, maxKeySeries: 1000, maxModelSeries: 100, defaultMetrics: true },
    {
      inFlight: () => 0,
      runningKeys: () => [],
      settlementsPending: () => 0,
      redisUp: () => true,
      now: Date.now,
    },
  );
  const record = Object.assign(new GatewayRequest("bench", "POST", "/v1/chat/completions", 0), {
    status: 200,
    outcome: "completed" as const,
    endedAt: Date.now(),
    model: "demo-small",
    ref: { accountId: "bench", keyId: "key_00000000000000000000" },
    keyName: "bench",
    endpointClass: "generation" as const,
    promptTokens: 12,
    completionTokens: 16,
    cost: 28,
    latencyMs: 1.5,
    upstreamTtfbMs: 0.4,
    gatewayMs: 0.3,
  });
  const resetAt = Date.now() + 86_400_000;
  const request = () => {
    metrics.redisOperation("reserve", 0.0002);
    metrics.request(record);
    metrics.redisOperation("settle", 0.0002);
    metrics.settled("bench", "key_00000000000000000000", "bench", 999_000_000, [
      { period: "month", budget: 5_000_000, spent: 1_000, resetAt },
    ]);
  };
  for (let i = 0; i < WARM_UP; i++) request();
  const started = performance.now();
  for (let i = 0; i < ITERATIONS; i++) request();
  return ((performance.now() - started) * 1000) / ITERATIONS;
}
