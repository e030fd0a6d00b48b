// The metric declarations as data, held to the Prometheus conventions their header promises: prefixed
// snake-case names in base units, counters ending in _total and nothing else, histograms with rising
// buckets, label names valid and not repeated. (That the registry holds exactly these is
// prometheus-rules.test.ts; that the docs list them, metrics-docs.test.ts.)

import { describe, expect, it } from "vitest";
import {
  DURATION_BUCKETS,
  KEY_DURATION_BUCKETS,
  METRIC_PREFIX,
  METRICS,
  type MetricDefinition,
  OVERHEAD_BUCKETS,
  REDIS_BUCKETS,
  TTFB_BUCKETS,
} from "../../src/observability/metric-definitions.js";

const definitions: [string, MetricDefinition][] = Object.entries(METRICS);

describe("the metric declarations", () => {
  it("have snake-case names of their own, to be prefixed with tunnel_gateway_", () => {
    expect(METRIC_PREFIX).toBe("tunnel_gateway_");
    const names = definitions.map(([, d]) => d.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name).toMatch(/^[a-z][a-z0-9_]*[a-z0-9]$/);
      expect(name.startsWith(METRIC_PREFIX)).toBe(false);
    }
  });

  it("end counters, and only counters, in _total", () => {
    for (const [key, d] of definitions) {
      expect(d.name.endsWith("_total"), key).toBe(d.type === "counter");
    }
  });

  it("use base units: seconds for times, rubles for money, never milliseconds", () => {
    for (const [key, d] of definitions) {
      expect(d.name, key).not.toMatch(/_(ms|milliseconds|minutes|kopecks|micros)(_|$)/);
      if (d.type === "histogram") expect(d.name, key).toMatch(/_seconds$/);
      if (/spend|balance|budget|overage/.test(d.name)) expect(d.name, key).toMatch(/_rubles(_total)?$/);
    }
  });

  it("give buckets to histograms only, rising strictly", () => {
    for (const [key, d] of definitions) {
      if (d.type !== "histogram") {
        expect(d.buckets, key).toBeUndefined();
        continue;
      }
      const buckets = d.buckets ?? [];
      expect(buckets.length, key).toBeGreaterThan(0);
      for (let i = 1; i < buckets.length; i++) expect(buckets[i]! > buckets[i - 1]!, key).toBe(true);
    }
    for (const buckets of [
      DURATION_BUCKETS,
      TTFB_BUCKETS,
      OVERHEAD_BUCKETS,
      REDIS_BUCKETS,
      KEY_DURATION_BUCKETS,
    ]) {
      expect([...buckets].sort((a, b) => a - b)).toEqual(buckets);
      expect(buckets.every((b) => b > 0)).toBe(true);
    }
  });

  it("have valid label names, none repeated and none reserved, and a help text each", () => {
    for (const [key, d] of definitions) {
      const labels = d.labels ?? [];
      expect(new Set(labels).size, key).toBe(labels.length);
      for (const label of labels) {
        expect(label, key).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(label.startsWith("__"), key).toBe(false);
        expect(["le", "quantile"], key).not.toContain(label);
      }
      expect(d.help.length, key).toBeGreaterThan(10);
    }
  });
});
