import { describe, expect, it } from "vitest";
import type { GatewayRequest } from "../../src/core/request.js";
import { NO_METRICS, type RunningKey } from "../../src/observability/gateway-metrics.js";
import { Metrics } from "../../src/observability/metrics.js";
import { type RequestFields, requestWith } from "../helpers/requests.js";

/** A completed request of key_a of account acme for model m. */
function finished(over: RequestFields): GatewayRequest {
  return requestWith({
    requestId: "r",
    method: "POST",
    path: "/v1/chat/completions",
    status: 200,
    outcome: "completed",
    endedAt: 0,
    accountId: "acme",
    keyId: "key_a",
    keyName: "k",
    model: "m",
    endpointClass: "generation",
    promptTokens: 1,
    completionTokens: 1,
    cost: 1_000_000,
    latencyMs: 200,
    upstreamTtfbMs: 100,
    gatewayMs: 1,
    ...over,
  });
}

describe("Metrics", () => {
  const probes = {
    inFlight: () => 3,
    runningKeys: () => [],
    settlementsPending: () => 2,
    redisUp: () => false,
    now: () => 1000,
  };

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
    metrics.settled("acme", "key_a", "prod", 5_000_000, [
      { period: "month", budget: 10_000_000, spent: 9_500_000, resetAt: 2000 },
    ]);
    expect(await metrics.registry.metrics()).toMatch(
      /tunnel_gateway_key_budget_remaining_rubles\{[^}]*key_id="key_a"[^}]*\} 0\.5$/m,
    );
    now = 2000;
    expect(await metrics.registry.metrics()).toMatch(
      /tunnel_gateway_key_budget_remaining_rubles\{[^}]*key_id="key_a"[^}]*\} 10$/m,
    );
    // Removing the key's budget removes its series.
    metrics.settled("acme", "key_a", "prod", 5_000_000, []);
    expect(await metrics.registry.metrics()).not.toMatch(/key_budget_remaining_rubles\{/);
  });

  it("shows requests in flight per key only for keys with max_parallel, within the series cap", async () => {
    let running: RunningKey[] = [];
    const key = (keyId: string, maxParallel: number | null): RunningKey => ({
      accountId: "acme",
      keyId,
      keyName: keyId,
      maxParallel,
    });
    const metrics = new Metrics(
      { perKey: true, maxKeySeries: 2, maxModelSeries: 10, defaultMetrics: false },
      { ...probes, runningKeys: () => running },
    );
    const gauge = async () =>
      (await metrics.registry.metrics()).match(/^tunnel_gateway_key_requests_in_flight\{.*$/gm) ?? [];

    running = [key("key_a", 3), key("key_a", 3), key("key_b", null), key("key_c", 1), key("key_d", 5)];
    expect(await gauge()).toEqual([
      'tunnel_gateway_key_requests_in_flight{account="acme",key_id="key_a",key_name="key_a"} 2',
      'tunnel_gateway_key_requests_in_flight{account="acme",key_id="key_c",key_name="key_c"} 1',
    ]);
    // Nothing running: the followed keys read 0 rather than vanish.
    running = [];
    expect(await gauge()).toEqual([
      'tunnel_gateway_key_requests_in_flight{account="acme",key_id="key_a",key_name="key_a"} 0',
      'tunnel_gateway_key_requests_in_flight{account="acme",key_id="key_c",key_name="key_c"} 0',
    ]);
    // key_a's limit was removed: its series goes.
    running = [key("key_a", null)];
    expect(await gauge()).toEqual([
      'tunnel_gateway_key_requests_in_flight{account="acme",key_id="key_c",key_name="key_c"} 0',
    ]);
  });

  it("keeps one set of per-key series per key however often it is renamed", async () => {
    const metrics = new Metrics(
      { perKey: true, maxKeySeries: 10, maxModelSeries: 10, defaultMetrics: false },
      probes,
    );
    const request = (keyName: string) => metrics.request(finished({ keyName }));
    for (const name of ["first", "second", "third", "third"]) request(name);
    const text = await metrics.registry.metrics();
    expect(text.match(/^tunnel_gateway_key_spend_rubles_total\{.*$/gm)).toEqual([
      'tunnel_gateway_key_spend_rubles_total{account="acme",key_id="key_a",key_name="third"} 2',
    ]);
    expect(text.match(/^tunnel_gateway_key_request_duration_seconds_count\{.*$/gm)).toEqual([
      'tunnel_gateway_key_request_duration_seconds_count{account="acme",key_id="key_a",key_name="third"} 2',
    ]);
  });

  it("counts usage reports not believed by reason, and overage in rubles by model, from the start", async () => {
    const metrics = new Metrics(
      { perKey: false, maxKeySeries: 0, maxModelSeries: 10, defaultMetrics: false },
      probes,
    );
    expect(await metrics.registry.metrics()).toMatch(
      /tunnel_gateway_usage_rejected_total\{reason="not_a_count"\} 0/,
    );
    metrics.request(finished({ estimated: true, usageRejected: "completion_above_cap" }));
    metrics.request(finished({ overage: 1_250_000 }));
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/tunnel_gateway_usage_rejected_total\{reason="completion_above_cap"\} 1/);
    expect(text).toMatch(/tunnel_gateway_overage_rubles_total\{model="m"\} 1\.25/);
  });

  it("does not throw over a balance no double holds exactly", () => {
    const metrics = new Metrics(
      { perKey: true, maxKeySeries: 10, maxModelSeries: 10, defaultMetrics: false },
      probes,
    );
    expect(() =>
      metrics.settled("acme", "key_a", "k", -(2 ** 60), [
        { period: "day", budget: 1, spent: 2 ** 60, resetAt: 0 },
      ]),
    ).not.toThrow();
  });

  it("bounds model names chosen by clients", async () => {
    const metrics = new Metrics(
      { perKey: false, maxKeySeries: 0, maxModelSeries: 2, defaultMetrics: false },
      probes,
    );
    for (const model of ["m1", "m2", "m3", "m4"]) {
      metrics.request(finished({ model, status: 403, outcome: "refused", code: "model_not_allowed" }));
    }
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/tunnel_gateway_requests_total\{model="m1",status="403"\} 1/);
    expect(text).toMatch(/tunnel_gateway_requests_total\{model="other",status="403"\} 2/);
    expect(text).not.toMatch(/model="m3"/);
  });

  it("counts a refusal by its code, and a gateway's own 502 and 504 among refusals and upstream failures", async () => {
    const metrics = new Metrics(
      { perKey: false, maxKeySeries: 0, maxModelSeries: 10, defaultMetrics: false },
      probes,
    );
    metrics.request(finished({ status: 401, outcome: "refused", code: "invalid_api_key", model: null }));
    metrics.request(
      finished({ status: 504, outcome: "upstream_timeout", code: "upstream_timeout", upstreamTtfbMs: null }),
    );
    metrics.request(finished({ status: 503 }));
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/tunnel_gateway_refusals_total\{code="invalid_api_key"\} 1/);
    expect(text).toMatch(/tunnel_gateway_refusals_total\{code="upstream_timeout"\} 1/);
    expect(text).toMatch(/tunnel_gateway_upstream_failures_total\{kind="timeout"\} 1/);
    expect(text).toMatch(/tunnel_gateway_upstream_failures_total\{kind="5xx"\} 1/);
    expect(text).toMatch(/tunnel_gateway_requests_total\{model="none",status="401"\} 1/);
    // A refusal is not a forwarded request: no duration, no tokens.
    expect(text).toMatch(/tunnel_gateway_request_duration_seconds_count\{model="m"\} 2/);
  });

  it("counts each request's wait for the model server per account, and what waits and runs at scrape time", async () => {
    let waiting: [string, number][] = [
      ["acme", 3],
      ["beta", 1],
    ];
    const metrics = new Metrics(
      {
        perKey: true,
        maxKeySeries: 10,
        maxModelSeries: 10,
        maxAccountSeries: 1,
        maxInFlight: 8,
        defaultMetrics: false,
      },
      { ...probes, queue: () => ({ inUse: 8, waitingAccounts: () => waiting }) },
    );
    metrics.request(finished({ queuedAt: 10, dequeuedAt: 2010 }));
    metrics.request(finished({ queuedAt: 10, dequeuedAt: 10 }));
    metrics.request(finished({}));
    metrics.request(
      finished({
        accountId: "beta",
        queuedAt: 1,
        dequeuedAt: 30_001,
        outcome: "refused",
        status: 429,
        code: "server_busy",
      }),
    );
    let text = await metrics.registry.metrics();
    // Only requests that asked for a place: one waited 2 s, one none; beta folds into "other" past the cap.
    expect(text).toMatch(/^tunnel_gateway_queue_wait_seconds_count\{account="acme"\} 2$/m);
    expect(text).toMatch(/^tunnel_gateway_queue_wait_seconds_bucket\{le="0.001",account="acme"\} 1$/m);
    expect(text).toMatch(/^tunnel_gateway_queue_wait_seconds_sum\{account="other"\} 30$/m);
    expect(text).toMatch(/^tunnel_gateway_refusals_total\{code="server_busy"\} 1$/m);
    expect(text).toMatch(/^tunnel_gateway_queue_requests\{account="acme"\} 3$/m);
    expect(text).toMatch(/^tunnel_gateway_queue_requests\{account="other"\} 1$/m);
    expect(text).toMatch(/^tunnel_gateway_upstream_in_flight 8$/m);
    expect(text).toMatch(/^tunnel_gateway_upstream_max_in_flight 8$/m);
    // An account that no longer waits reads 0 rather than vanishing.
    waiting = [];
    text = await metrics.registry.metrics();
    expect(text).toMatch(/^tunnel_gateway_queue_requests\{account="acme"\} 0$/m);
  });

  it("has a no-op stand-in when metrics are off, with nothing to serve", () => {
    expect(NO_METRICS.registry).toBeNull();
    expect(() => NO_METRICS.request(finished({}))).not.toThrow();
  });
});
