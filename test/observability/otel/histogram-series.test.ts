// Histograms aggregated by the gateway, collected as OpenTelemetry metric data the way the SDK reports its own
// synchronous histograms: inclusive bucket bounds, negative values dropped and NaN not counted, cumulative
// points that keep growing from the series' first record, delta points that hold one interval and start at the
// previous collection, and no point for a series (or metric) with nothing to report. That the result equals the
// SDK's for the GenAI metrics is test/observability/otel/gen-ai-metrics.test.ts.

import { AggregationTemporality, DataPointType } from "@opentelemetry/sdk-metrics";
import { describe, expect, it } from "vitest";
import { HistogramMetric } from "../../../src/observability/otel/histogram-series.js";

const DEFINITION = { name: "h", unit: "s", description: "A histogram.", buckets: [1, 2, 4] };
const { CUMULATIVE, DELTA } = AggregationTemporality;

function histogram() {
  const clock = { now: 5_000 };
  const metric = new HistogramMetric(DEFINITION, () => clock.now);
  return { metric, clock };
}

describe("HistogramMetric", () => {
  it("counts a value in the first bucket whose bound is at least the value, with sum, count, min and max", () => {
    const { metric } = histogram();
    const series = metric.seriesOf({ a: "x" });
    for (const value of [0, 1, 1.5, 2, 4, 4.5]) series.record(value);
    const data = metric.collect(CUMULATIVE, 6_000, 0);
    expect(data).toMatchObject({
      descriptor: { name: "h", unit: "s", description: "A histogram." },
      aggregationTemporality: CUMULATIVE,
      dataPointType: DataPointType.HISTOGRAM,
    });
    expect(data?.dataPoints).toEqual([
      {
        attributes: { a: "x" },
        startTime: [5, 0],
        endTime: [6, 0],
        value: {
          min: 0,
          max: 4.5,
          sum: 13,
          count: 6,
          buckets: { boundaries: [1, 2, 4], counts: [2, 2, 1, 1] },
        },
      },
    ]);
  });

  it("drops a negative value and does not count a NaN, though a NaN makes the series reported, as the SDK", () => {
    const { metric } = histogram();
    metric.seriesOf({ a: "negative" }).record(-1);
    metric.seriesOf({ a: "nan" }).record(Number.NaN);
    expect(metric.collect(CUMULATIVE, 6_000, 0)?.dataPoints.map((p) => [p.attributes, p.value])).toEqual([
      [
        { a: "nan" },
        {
          min: undefined,
          max: undefined,
          sum: 0,
          count: 0,
          buckets: { boundaries: [1, 2, 4], counts: [0, 0, 0, 0] },
        },
      ],
    ]);
  });

  it("reports nothing for a metric whose series were never recorded", () => {
    const { metric } = histogram();
    metric.seriesOf({ a: "x" });
    expect(metric.collect(CUMULATIVE, 6_000, 0)).toBeNull();
    expect(metric.collect(DELTA, 6_000, 0)).toBeNull();
  });

  it("cumulative: keeps every series from its first record on, in that order, growing", () => {
    const { metric, clock } = histogram();
    const first = metric.seriesOf({ a: "first" });
    const second = metric.seriesOf({ a: "second" });
    second.record(3);
    clock.now = 5_500;
    first.record(1);
    metric.collect(CUMULATIVE, 6_000, 0);
    second.record(0.5);
    const points = metric.collect(CUMULATIVE, 7_000, 6_000)?.dataPoints ?? [];
    expect(points.map((p) => [p.attributes.a, p.startTime, p.value.count, p.value.sum, p.value.min])).toEqual(
      [
        ["second", [5, 0], 2, 3.5, 0.5],
        ["first", [5, 500_000_000], 1, 1, 1],
      ],
    );
  });

  it("delta: reports each interval alone, only the series recorded in it, from the previous collection", () => {
    const { metric, clock } = histogram();
    const series = metric.seriesOf({ a: "x" });
    clock.now = 5_250;
    series.record(3);
    const first = metric.collect(DELTA, 6_000, 5_000)?.dataPoints[0];
    expect([first?.startTime, first?.value.count, first?.value.max]).toEqual([[5, 250_000_000], 1, 3]);
    series.record(0.5);
    const second = metric.collect(DELTA, 7_000, 6_000)?.dataPoints[0];
    expect([second?.startTime, second?.value.count, second?.value.max]).toEqual([[6, 0], 1, 0.5]);
    expect(metric.collect(DELTA, 8_000, 7_000)).toBeNull();
    // Not reported by the previous collection: starts at its first record in the interval.
    clock.now = 8_500;
    series.record(1);
    expect(metric.collect(DELTA, 9_000, 8_000)?.dataPoints[0]?.startTime).toEqual([8, 500_000_000]);
  });
});
