import { describe, expect, it } from "vitest";
import { Metrics, OTHER, SeriesCap } from "../../src/observability/metrics.js";

describe("SeriesCap", () => {
  it("admits up to its maximum, folds the rest into other, and never moves an admitted value", () => {
    const cap = new SeriesCap(2);
    expect(cap.label("a")).toBe("a");
    expect(cap.label("b")).toBe("b");
    expect(cap.label("c")).toBe(OTHER);
    expect(cap.label("a")).toBe("a");
    expect(cap.label("c")).toBe(OTHER);
  });
});

describe("Metrics", () => {
  const probes = { inFlight: () => 3, settlementsPending: () => 2, redisUp: () => false, now: () => 1000 };

  it("reads in-flight requests, pending settlements and Redis availability at scrape time", async () => {
    const metrics = new Metrics(
      { perKey: true, maxKeySeries: 10, maxModelSeries: 10, defaultMetrics: false },
      probes,
    );
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^tunnel_gateway_requests_in_flight 3$/m);
    expect(text).toMatch(/^tunnel_gateway_settlements_pending 2$/m);
    expect(text).toMatch(/^tunnel_gateway_redis_up 0$/m);
  });

  it("shows the whole budget again once the key's period has ended, without waiting for a request", async () => {
    let now = 1000;
    const metrics = new Metrics(
      { perKey: true, maxKeySeries: 10, maxModelSeries: 10, defaultMetrics: false },
      { ...probes, now: () => now },
    );
    metrics.settled("acme", "key_a", "prod", 5_000_000, 10_000_000, 9_500_000, 2000);
    expect(await metrics.registry.metrics()).toMatch(
      /tunnel_gateway_key_budget_remaining_rubles\{[^}]*key_id="key_a"[^}]*\} 0\.5$/m,
    );
    now = 2000;
    expect(await metrics.registry.metrics()).toMatch(
      /tunnel_gateway_key_budget_remaining_rubles\{[^}]*key_id="key_a"[^}]*\} 10$/m,
    );
    // Removing the key's budget removes its series.
    metrics.settled("acme", "key_a", "prod", 5_000_000, null, 0, 3000);
    expect(await metrics.registry.metrics()).not.toMatch(/key_budget_remaining_rubles\{/);
  });

  it("bounds model names chosen by clients", async () => {
    const metrics = new Metrics(
      { perKey: false, maxKeySeries: 0, maxModelSeries: 2, defaultMetrics: false },
      probes,
    );
    for (const model of ["m1", "m2", "m3", "m4"]) metrics.refused("model_not_allowed", 403, model);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/tunnel_gateway_requests_total\{model="m1",status="403"\} 1/);
    expect(text).toMatch(/tunnel_gateway_requests_total\{model="other",status="403"\} 2/);
    expect(text).not.toMatch(/model="m3"/);
  });
});
