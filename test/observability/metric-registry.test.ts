// The declared metrics made into prom-client objects: every declaration registered under the prefix with its
// type, and a gauge given a collect function read at scrape time.

import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { METRIC_PREFIX, METRICS } from "../../src/observability/metric-definitions.js";
import { buildMetrics } from "../../src/observability/metric-registry.js";

describe("buildMetrics", () => {
  it("registers every declared metric, and fills a collected gauge when scraped", async () => {
    const registry = new Registry();
    const built = buildMetrics(registry, { redisUp: (gauge) => gauge.set(1) });
    const registered = (await registry.getMetricsAsJSON()).map((metric) => [metric.name, metric.type]);
    expect(registered).toEqual(
      Object.values(METRICS).map((definition) => [METRIC_PREFIX + definition.name, definition.type]),
    );
    expect(Object.keys(built).sort()).toEqual(Object.keys(METRICS).sort());
    expect(await registry.getSingleMetricAsString(METRIC_PREFIX + METRICS.redisUp.name)).toMatch(/ 1$/m);
  });
});
