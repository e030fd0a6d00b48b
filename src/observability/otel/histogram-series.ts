// Explicit-bucket histograms aggregated by the gateway and read as OpenTelemetry metric data, for a metric
// producer (gen-ai-metrics.ts) to hand to the SDK's reader. The SDK's own Histogram.record hashes the
// attributes of every record (a sorted JSON string) to find its series; here the caller holds its series and a
// record is a few number writes. What a collection reports is what @opentelemetry/sdk-metrics 2.12 reports for
// a synchronous histogram, so that the data exported is the same (test/observability/otel/
// gen-ai-metrics.test.ts compares both through a real MeterProvider):
//
// - a record is aggregated into the series' current interval, as the SDK's accumulation is; a negative value is
//   dropped with a warning and a NaN is not counted, as the SDK's instrument and accumulation do;
// - cumulative: each collection merges the interval into the series' totals (sum = totals' sum + interval's
//   sum, as the SDK merges, so the floating-point sums are equal too); a point starts at the series' first
//   record;
// - delta: a collection reports the series recorded in the interval only, and resets them; a point starts at
//   the previous collection when the series was reported then, otherwise at its first record in the interval;
// - a series never recorded, or a metric without any point, is left out.
//
// Not reproduced: the SDK's cardinality limit (2000 series per metric, beyond which it folds series into
// otel.metric.overflow). The gateway's GenAI series are bounded well below that by their attributes.

import { type Attributes, diag, type HrTime, ValueType } from "@opentelemetry/api";
import { millisToHrTime } from "@opentelemetry/core";
import {
  AggregationTemporality,
  DataPointType,
  type HistogramMetricData,
  type MetricDescriptor,
} from "@opentelemetry/sdk-metrics";

export interface HistogramDefinition {
  name: string;
  unit: string;
  description: string;
  buckets: readonly number[];
}

type Point = HistogramMetricData["dataPoints"][number];

/** One series of a histogram: its attributes, fixed when it is made, and its counts. */
export class HistogramSeries {
  // The current interval, as the SDK's accumulation between two collections.
  private readonly counts: Float64Array;
  private count = 0;
  private sum = 0;
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;
  /** Recorded since the last collection (a NaN record counts, as it makes the SDK's accumulation). */
  private recorded = false;
  private intervalStart = 0;
  // Cumulative only: the intervals collected so far.
  private readonly totalCounts: Float64Array;
  private totalCount = 0;
  private totalSum = 0;
  private totalMin = Number.POSITIVE_INFINITY;
  private totalMax = Number.NEGATIVE_INFINITY;
  private totalStart = 0;
  /** Delta only: reported by the previous collection, so its next point starts there. */
  private reportedLast = false;
  private listed = false;

  constructor(
    readonly attributes: Attributes,
    private readonly metric: HistogramMetric,
  ) {
    this.counts = new Float64Array(metric.boundaries.length + 1);
    this.totalCounts = new Float64Array(metric.boundaries.length + 1);
  }

  record(value: number): void {
    if (value < 0) {
      diag.warn(`negative value provided to histogram ${this.metric.descriptor.name}: ${value}`);
      return;
    }
    if (!this.recorded) this.begin();
    if (Number.isNaN(value)) return;
    this.count += 1;
    this.sum += value;
    this.min = Math.min(value, this.min);
    this.max = Math.max(value, this.max);
    // The first bucket whose upper bound is at least the value (bounds are inclusive), as the SDK's search.
    const boundaries = this.metric.boundaries;
    let bucket = 0;
    while (bucket < boundaries.length && (boundaries[bucket] as number) < value) bucket += 1;
    this.counts[bucket] = (this.counts[bucket] as number) + 1;
  }

  private begin(): void {
    this.recorded = true;
    this.intervalStart = this.metric.now();
    if (!this.listed) {
      this.listed = true;
      this.totalStart = this.intervalStart;
      this.metric.list(this);
    }
  }

  /** The point a cumulative collection reports: the interval merged into the totals. */
  cumulativePoint(endTime: HrTime): Point | null {
    if (this.recorded) {
      for (let i = 0; i < this.counts.length; i++) {
        this.totalCounts[i] = (this.totalCounts[i] as number) + (this.counts[i] as number);
      }
      this.totalCount += this.count;
      this.totalSum += this.sum;
      this.totalMin = Math.min(this.totalMin, this.min);
      this.totalMax = Math.max(this.totalMax, this.max);
      this.reset();
    }
    if (!this.listed) return null;
    const { totalStart, totalCounts, totalCount, totalSum, totalMin, totalMax } = this;
    return this.point(totalStart, endTime, totalCounts, totalCount, totalSum, totalMin, totalMax);
  }

  /** The point a delta collection reports, null when nothing was recorded since the previous one. */
  deltaPoint(endTime: HrTime, previousCollection: number): Point | null {
    if (!this.recorded) {
      this.reportedLast = false;
      return null;
    }
    const start = this.reportedLast ? previousCollection : this.intervalStart;
    const point = this.point(start, endTime, this.counts, this.count, this.sum, this.min, this.max);
    this.reportedLast = true;
    this.reset();
    return point;
  }

  private point(
    start: number,
    endTime: HrTime,
    counts: Float64Array,
    count: number,
    sum: number,
    min: number,
    max: number,
  ): Point {
    return {
      attributes: this.attributes,
      startTime: millisToHrTime(start),
      endTime,
      value: {
        min: count > 0 ? min : undefined,
        max: count > 0 ? max : undefined,
        sum,
        buckets: { boundaries: this.metric.boundaries, counts: Array.from(counts) },
        count,
      },
    };
  }

  private reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.sum = 0;
    this.min = Number.POSITIVE_INFINITY;
    this.max = Number.NEGATIVE_INFINITY;
    this.recorded = false;
  }
}

/** A histogram metric: its descriptor, its bucket bounds and its series in the order they were first recorded. */
export class HistogramMetric {
  readonly descriptor: MetricDescriptor;
  readonly boundaries: number[];
  private readonly series: HistogramSeries[] = [];

  constructor(
    definition: HistogramDefinition,
    /** The clock of the series' start times, in milliseconds since the epoch. */
    readonly now: () => number,
  ) {
    this.descriptor = {
      name: definition.name,
      description: definition.description,
      unit: definition.unit,
      valueType: ValueType.DOUBLE,
    };
    this.boundaries = [...definition.buckets];
  }

  /** A series with these attributes; it is reported from its first record on. Made once, held by the caller. */
  seriesOf(attributes: Attributes): HistogramSeries {
    return new HistogramSeries(attributes, this);
  }

  /** @internal A series' first record. */
  list(series: HistogramSeries): void {
    this.series.push(series);
  }

  /**
   * The metric's data at `collectedAt` (ms), or null when it has no point. `previousCollection` is the
   * previous collection's time, which delta points of series reported then start at.
   */
  collect(
    temporality: AggregationTemporality,
    collectedAt: number,
    previousCollection: number,
  ): HistogramMetricData | null {
    const endTime = millisToHrTime(collectedAt);
    const dataPoints: Point[] = [];
    for (const series of this.series) {
      const point =
        temporality === AggregationTemporality.DELTA
          ? series.deltaPoint(endTime, previousCollection)
          : series.cumulativePoint(endTime);
      if (point !== null) dataPoints.push(point);
    }
    if (dataPoints.length === 0) return null;
    return {
      descriptor: this.descriptor,
      aggregationTemporality: temporality,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints,
    };
  }
}
