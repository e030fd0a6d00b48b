// Series of prom-client metrics that the request path updates with plain field writes. prom-client 15
// validates and hashes the label set again on every inc(), observe() and set(), even through a child from
// labels(), and a histogram turns the bucket's bound, a fractional number, into a string on every
// observation. V8 caches recent number-to-string conversions, so a loop of the same calls hides that cost;
// in the gateway, where many other numbers are converted between two requests, it is paid in full. These
// series do the same updates without either (bench/fast-paths.ts measures them against prom-client's
// children; docs/benchmarks.md has the figures).
//
// A series' stored entry is created once through the public API, found in the metric's table, and updated
// as prom-client's own methods update it. Where the table is not as prom-client 15 keeps it, the public child
// is returned instead, so a future prom-client costs speed, never correctness; test/observability/
// fast-series.test.ts compares the exposition of both paths. Entries are held, so the metrics must never be
// reset (the gateway never does); a series removed with remove() must drop its child (Metrics does).
// prom-client is pinned with ~ in package.json for this reason.

import type { Counter, Gauge, Histogram } from "prom-client";

export type Labels = Record<string, string>;

/**
 * Marks a series that writes prom-client's stored entry directly. A test checks that every kind gets one: if
 * a prom-client upgrade changes its tables, the public children take over (still correct), and that test
 * fails, so the lost speed does not go unnoticed.
 */
export const FAST = Symbol("tunnel-gateway.fast-series");
export interface CounterSeries {
  [FAST]?: true;
  inc(value?: number): void;
}
export interface HistogramSeries {
  [FAST]?: true;
  observe(value: number): void;
}
export interface GaugeSeries {
  [FAST]?: true;
  set(value: number): void;
}

type Entry = { labels: Record<string, unknown>; value?: unknown; sum?: unknown; count?: unknown };

function entryOf(metric: object, labels: Labels): Entry | undefined {
  const table = (metric as { hashMap?: Record<string, Entry> }).hashMap;
  if (typeof table !== "object" || table === null) return undefined;
  const names = Object.keys(labels);
  for (const entry of Object.values(table)) {
    const stored = entry.labels ?? {};
    if (Object.keys(stored).length !== names.length) continue;
    if (names.every((name) => String(stored[name]) === labels[name])) return entry;
  }
  return undefined;
}

export function counterSeries(counter: Counter<string>, labels: Labels): CounterSeries {
  counter.inc(labels, 0);
  const entry = entryOf(counter, labels);
  if (typeof entry?.value !== "number") return counter.labels(labels);
  const stored = entry as { value: number };
  return {
    [FAST]: true,
    inc(value = 1) {
      if (value >= 0 && Number.isFinite(value)) stored.value += value;
    },
  };
}

export function histogramSeries(
  histogram: Histogram<string>,
  labels: Labels,
  buckets: readonly number[],
): HistogramSeries {
  if (entryOf(histogram, labels) === undefined) histogram.zero(labels);
  const entry = entryOf(histogram, labels) as (Entry & { bucketValues?: Record<string, number> }) | undefined;
  const bucketValues = entry?.bucketValues;
  // prom-client keys the buckets by the bound as a string; turning a fractional number into that string
  // (as `counts[bound]` would, on every observation) costs more than all the rest of an observation.
  const keys = buckets.map((bound) => String(bound));
  if (
    typeof entry?.sum !== "number" ||
    typeof entry.count !== "number" ||
    typeof bucketValues !== "object" ||
    !keys.every((key) => typeof bucketValues[key] === "number")
  ) {
    return histogram.labels(labels);
  }
  const stored = entry as { sum: number; count: number };
  const counts = bucketValues as Record<string, number>;
  return {
    [FAST]: true,
    observe(value) {
      if (!Number.isFinite(value)) return;
      stored.sum += value;
      stored.count += 1;
      // The first bucket the value fits in; above the last bound only the count (the +Inf bucket) grows.
      for (let i = 0; i < buckets.length; i++) {
        if (value <= (buckets[i] as number)) {
          const key = keys[i] as string;
          counts[key] = (counts[key] as number) + 1;
          return;
        }
      }
    },
  };
}

export function gaugeSeries(gauge: Gauge<string>, labels: Labels): GaugeSeries {
  if (entryOf(gauge, labels) === undefined) gauge.set(labels, 0);
  const entry = entryOf(gauge, labels);
  if (typeof entry?.value !== "number") return gauge.labels(labels);
  const stored = entry as { value: number };
  return {
    [FAST]: true,
    set(value) {
      if (Number.isFinite(value)) stored.value = value;
    },
  };
}
