// The declared metrics (metric-definitions.ts) made into prom-client objects in one registry, the gauges that
// are read at scrape time given their collect function.

import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { METRIC_PREFIX, METRICS, type MetricKey } from "./metric-definitions.js";

/** Every declared metric, by its key. */
export type Built = { [K in MetricKey]: Counter<string> & Gauge<string> & Histogram<string> };

/** The declared metrics as prom-client objects in `registry`; gauges in `collect` are set at scrape time. */
export function buildMetrics(
  registry: Registry,
  collect: Partial<Record<MetricKey, (gauge: Gauge<string>) => void | Promise<void>>>,
): Built {
  const built: Partial<Record<MetricKey, unknown>> = {};
  for (const [key, definition] of Object.entries(METRICS) as [MetricKey, (typeof METRICS)[MetricKey]][]) {
    const config = {
      name: METRIC_PREFIX + definition.name,
      help: definition.help,
      labelNames: "labels" in definition ? [...definition.labels] : [],
      registers: [registry],
    };
    const fill = collect[key];
    if (definition.type === "counter") built[key] = new Counter(config);
    else if (definition.type === "histogram")
      built[key] = new Histogram({ ...config, buckets: [...definition.buckets] });
    else
      built[key] = new Gauge({
        ...config,
        ...(fill && {
          collect(this: Gauge<string>) {
            return fill(this);
          },
        }),
      });
  }
  return built as Built;
}
