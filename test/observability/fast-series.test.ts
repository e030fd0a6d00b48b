// The fast series write prom-client's stored entries directly; what a scrape shows must be exactly what the
// public API would have produced for the same updates, or else the shortcut is wrong. Each case runs the
// same updates through prom-client's own methods on one registry and through the fast series on another.

import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { counterSeries, FAST, gaugeSeries, histogramSeries } from "../../src/observability/fast-series.js";

const BUCKETS = [0.001, 0.01, 0.1, 1];

function metricsOn(registry: Registry) {
  const registers = [registry];
  return {
    counter: new Counter({ name: "c_total", help: "c", labelNames: ["model", "status"], registers }),
    histogram: new Histogram({
      name: "h_seconds",
      help: "h",
      labelNames: ["model"],
      buckets: BUCKETS,
      registers,
    }),
    plain: new Histogram({ name: "p_seconds", help: "p", buckets: BUCKETS, registers }),
    gauge: new Gauge({ name: "g_rubles", help: "g", labelNames: ["account"], registers }),
  };
}

// Values on bounds, between them, above the last one, zero, and a non-finite one prom-client refuses.
const OBSERVED = [0, 0.001, 0.0005, 0.05, 1, 2.5, 300];

describe("fast series", () => {
  it("expose exactly what prom-client's own methods would", async () => {
    const reference = new Registry();
    const fast = new Registry();
    const a = metricsOn(reference);
    const b = metricsOn(fast);

    for (const value of OBSERVED) {
      a.histogram.observe({ model: "m" }, value);
      a.plain.observe(value);
    }
    a.counter.inc({ model: "m", status: "200" }, 3);
    a.counter.inc({ model: "m", status: "200" });
    a.counter.inc({ model: "x", status: "502" }, 0.25);
    a.gauge.set({ account: "acme" }, 12.5);
    a.gauge.set({ account: "acme" }, -3);

    const histogram = histogramSeries(b.histogram, { model: "m" }, BUCKETS);
    const plain = histogramSeries(b.plain, {}, BUCKETS);
    for (const value of OBSERVED) {
      histogram.observe(value);
      plain.observe(value);
    }
    plain.observe(Number.NaN);
    const ok = counterSeries(b.counter, { model: "m", status: "200" });
    ok.inc(3);
    ok.inc();
    counterSeries(b.counter, { model: "x", status: "502" }).inc(0.25);
    const balance = gaugeSeries(b.gauge, { account: "acme" });
    balance.set(12.5);
    balance.set(-3);

    expect(await fast.metrics()).toBe(await reference.metrics());
    // The series are prom-client's own entries: its public methods and the fast series add up.
    b.counter.inc({ model: "m", status: "200" }, 2);
    ok.inc();
    expect(await b.counter.get()).toMatchObject({
      values: expect.arrayContaining([{ labels: { model: "m", status: "200" }, value: 7 }]),
    });
  });

  it("take over a series prom-client's methods have already started, without resetting it", async () => {
    const registry = new Registry();
    const { histogram, counter } = metricsOn(registry);
    histogram.observe({ model: "m" }, 0.05);
    counter.inc({ model: "m", status: "200" }, 5);
    histogramSeries(histogram, { model: "m" }, BUCKETS).observe(0.5);
    counterSeries(counter, { model: "m", status: "200" }).inc();
    const text = await registry.metrics();
    expect(text).toContain('h_seconds_count{model="m"} 2');
    expect(text).toContain('h_seconds_sum{model="m"} 0.55');
    expect(text).toContain('c_total{model="m",status="200"} 6');
  });

  it("take the fast path on the installed prom-client, for every kind", () => {
    const { counter, histogram, plain, gauge } = metricsOn(new Registry());
    const series = [
      counterSeries(counter, { model: "m", status: "200" }),
      histogramSeries(histogram, { model: "m" }, BUCKETS),
      histogramSeries(plain, {}, BUCKETS),
      gaugeSeries(gauge, { account: "a" }),
    ];
    for (const one of series) expect(one[FAST]).toBe(true);
  });
});
