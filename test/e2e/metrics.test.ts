// The metrics after real traffic: values checked against what happened, the format checked by promtool,
// the listener kept apart from the public port, the per-key series bounded.

import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { ERRORS } from "../../src/core/errors.js";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { parseExposition, series, total } from "../helpers/prometheus.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

let t: TestGateway;
let upstream: StubUpstream;

afterEach(async () => {
  await t?.close();
  await upstream?.close();
});

async function setup(config: Record<string, unknown> = {}) {
  upstream = await startStubUpstream();
  t = await startTestGateway({ upstreamUrl: upstream.url, config: { pricing: PRICING, ...config } });
}

async function scrape(token?: string): Promise<string> {
  const res = await fetch(
    `${t.gateway.metricsUrl}/metrics`,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return res.text();
}

function chat(key: string, body: Record<string, unknown> = {}) {
  return t.fetch("/v1/chat/completions", {
    method: "POST",
    key,
    body: JSON.stringify({
      model: "demo-small",
      max_tokens: 5,
      messages: [{ role: "user", content: "a b c" }],
      ...body,
    }),
  });
}

function requestLines(): Record<string, any>[] {
  return t.logs.filter((line) => line.msg === "request");
}

describe("metrics after real traffic", () => {
  it("count requests, tokens, spend and refusals as they happened, and show budgets as /v1/key does", async () => {
    // Without admission leases, so that every forwarded request makes its reserve call and is counted there
    // (a leased request makes none: test/e2e/leases.test.ts).
    await setup({ billing: { leases: false } });
    const budgeted = await t.newKey({ budget: "10", period: "day" });
    const limited = await t.newKey({ models: ["demo-large"] });
    for (let i = 0; i < 4; i++) await (await chat(budgeted.value, { stream: i % 2 === 0 })).text();
    await (await chat(limited.value)).text(); // 403 model_not_allowed
    await (await chat(limited.value)).text(); // and again
    await (await t.fetch("/v1/key")).text(); // 401 missing_api_key on a local route
    await (await chat(budgeted.value, { max_tokens: 100_000 })).text(); // 403 budget_exceeded: worst case too big
    upstream.handle((_req, res) => {
      res.writeHead(500, { "content-type": "application/json" }).end('{"error":{"message":"boom"}}');
      return true;
    });
    await (await chat(budgeted.value)).text(); // an upstream 5xx
    await t.gateway.settled();

    const samples = parseExposition(await scrape());
    const lines = requestLines();
    expect(lines).toHaveLength(5);

    expect(total(samples, "tunnel_gateway_requests_total", { model: "demo-small", status: "200" })).toBe(4);
    expect(total(samples, "tunnel_gateway_requests_total", { status: "500" })).toBe(1);
    expect(total(samples, "tunnel_gateway_requests_total", { status: "403" })).toBe(3);
    expect(total(samples, "tunnel_gateway_request_duration_seconds_count", { model: "demo-small" })).toBe(5);
    expect(total(samples, "tunnel_gateway_overhead_seconds_count")).toBe(5);

    // The four completed requests each send "a b c" (3 prompt tokens: the demo upstream counts one per
    // word) and get max_tokens = 5 completion tokens (the demo writes min(max_tokens, 12)); the upstream's
    // 500 reported no usage and is billed nothing. At PRICING's 1000 ₽ and 2000 ₽ per million tokens, one
    // request costs 3 × 1000 µ₽ + 5 × 2000 µ₽ = 13 000 µ₽, four cost 52 000 µ₽ = 0.052 ₽.
    expect(total(samples, "tunnel_gateway_tokens_total", { kind: "prompt" })).toBe(12);
    expect(total(samples, "tunnel_gateway_tokens_total", { kind: "completion" })).toBe(20);
    expect(
      lines.map((line) => [line.status, line.prompt_tokens, line.completion_tokens, line.cost_rub]),
    ).toEqual([
      [200, 3, 5, 0.013],
      [200, 3, 5, 0.013],
      [200, 3, 5, 0.013],
      [200, 3, 5, 0.013],
      [500, 0, 0, 0],
    ]);
    expect(Math.round(total(samples, "tunnel_gateway_spend_rubles_total", { account: "acme" }) * 1e6)).toBe(
      52_000,
    );
    expect(
      Math.round(total(samples, "tunnel_gateway_key_spend_rubles_total", { key_id: budgeted.id }) * 1e6),
    ).toBe(52_000);

    expect(total(samples, "tunnel_gateway_refusals_total", { code: "model_not_allowed" })).toBe(2);
    expect(total(samples, "tunnel_gateway_refusals_total", { code: "missing_api_key" })).toBe(1);
    expect(total(samples, "tunnel_gateway_refusals_total", { code: "budget_exceeded" })).toBe(1);
    expect(total(samples, "tunnel_gateway_refusals_total")).toBe(4);
    // Every code of the table has its series from the start.
    expect(
      series(samples, "tunnel_gateway_refusals_total")
        .map((s) => s.labels.code)
        .sort(),
    ).toEqual(Object.keys(ERRORS).sort());
    expect(total(samples, "tunnel_gateway_upstream_failures_total", { kind: "5xx" })).toBe(1);

    const view = await json(await t.fetch("/v1/key", { key: budgeted.value }));
    expect(total(samples, "tunnel_gateway_key_budget_remaining_rubles", { key_id: budgeted.id })).toBe(
      view.budgets[0].remaining,
    );
    expect(total(samples, "tunnel_gateway_key_budget_rubles", { key_id: budgeted.id })).toBe(10);
    // A key without a budget has no remaining-budget series.
    expect(series(samples, "tunnel_gateway_key_budget_remaining_rubles").map((s) => s.labels.key_id)).toEqual(
      [budgeted.id],
    );
    const balance = await json(await t.fetch("/v1/balance", { key: budgeted.value }));
    expect(total(samples, "tunnel_gateway_account_balance_rubles", { account: "acme" })).toBe(
      balance.balance,
    );

    expect(total(samples, "tunnel_gateway_redis_up")).toBe(1);
    expect(total(samples, "tunnel_gateway_settlements_pending")).toBe(0);
    expect(total(samples, "tunnel_gateway_requests_in_flight")).toBe(0);
    expect(
      total(samples, "tunnel_gateway_redis_operation_duration_seconds_count", { operation: "reserve" }),
    ).toBe(8); // every forwarded request reserves, refused or not: 4 completed, 2 model_not_allowed, 1 budget_exceeded, the 5xx
    // Five requests were settled; settlements of one account that finish within 5 ms share a script call.
    const settleCalls = total(samples, "tunnel_gateway_redis_operation_duration_seconds_count", {
      operation: "settle",
    });
    expect(settleCalls).toBeGreaterThanOrEqual(1);
    expect(settleCalls).toBeLessThanOrEqual(5);
    expect(series(samples, "nodejs_eventloop_lag_p99_seconds")).toHaveLength(1);
  });

  it("pass promtool check metrics (format and naming)", async () => {
    await setup();
    const key = await t.newKey({ budget: "10" });
    await (await chat(key.value)).text();
    await t.gateway.settled();
    const text = await scrape();
    const check = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
    if (check.error)
      throw new Error("promtool is missing: install the Debian package `prometheus` (.ci/run does)");
    expect(`${check.stdout}${check.stderr}`.trim()).toBe("");
    expect(check.status).toBe(0);
  });
});

describe("the metrics listener", () => {
  it("is not the public port: /metrics there is forwarded like any other path and needs a key", async () => {
    await setup();
    const anonymous = await t.fetch("/metrics");
    expect(anonymous.status).toBe(401);
    const key = await t.newKey();
    const forwarded = await t.fetch("/metrics", { key: key.value });
    expect(forwarded.status).toBe(404); // the demo upstream has no /metrics: it was asked, not the gateway
    expect(upstream.requests.map((r) => r.url)).toEqual(["/metrics"]);
    expect(await forwarded.text()).not.toContain("tunnel_gateway_");
    expect(new URL(t.gateway.metricsUrl as string).port).not.toBe(new URL(t.url).port);
  });

  it("requires the metrics token when one is configured", async () => {
    const token = "metrics-token-0123456789";
    await setup({ metrics: { token } });
    expect((await fetch(`${t.gateway.metricsUrl}/metrics`)).status).toBe(401);
    expect(
      (
        await fetch(`${t.gateway.metricsUrl}/metrics`, {
          headers: { authorization: "Bearer wrong-token-0123456789" },
        })
      ).status,
    ).toBe(401);
    expect(await scrape(token)).toContain("tunnel_gateway_requests_total");
    expect((await fetch(`${t.gateway.metricsUrl}/other`)).status).toBe(404);
  });
});

describe("metrics switched off", () => {
  it("record nothing and open no listener", async () => {
    await setup({ metrics: { enabled: false } });
    const key = await t.newKey();
    await (await chat(key.value)).text();
    await t.gateway.settled();
    expect(t.gateway.metrics.registry).toBeNull();
    expect(t.gateway.metricsUrl).toBeNull();
    expect(requestLines()).toHaveLength(1);
  });
});

describe("per-key series", () => {
  it('stay bounded: keys beyond metrics.maxKeySeries fold into key_id="other"', async () => {
    await setup({ metrics: { maxKeySeries: 3 } });
    const keys = [];
    for (let i = 0; i < 7; i++) keys.push(await t.newKey({ budget: "10" }));
    for (const key of keys) await (await chat(key.value)).text();
    await t.gateway.settled();
    const samples = parseExposition(await scrape());
    const spendKeys = series(samples, "tunnel_gateway_key_spend_rubles_total").map((s) => s.labels.key_id);
    expect(spendKeys.sort()).toEqual([...keys.slice(0, 3).map((k) => k.id), "other"].sort());
    expect(total(samples, "tunnel_gateway_key_spend_rubles_total")).toBeCloseTo(
      total(samples, "tunnel_gateway_spend_rubles_total"),
      9,
    );
    // Budget gauges only for the keys that have series of their own.
    expect(series(samples, "tunnel_gateway_key_budget_remaining_rubles")).toHaveLength(3);
    const durationSeries = new Set(
      series(samples, "tunnel_gateway_key_request_duration_seconds_count").map((s) => s.labels.key_id),
    );
    expect(durationSeries.size).toBe(4);
  });

  it("can be switched off", async () => {
    await setup({ metrics: { perKey: false } });
    const key = await t.newKey({ budget: "10" });
    await (await chat(key.value)).text();
    await t.gateway.settled();
    const samples = parseExposition(await scrape());
    expect(series(samples, "tunnel_gateway_key_spend_rubles_total")).toHaveLength(0);
    expect(series(samples, "tunnel_gateway_key_budget_remaining_rubles")).toHaveLength(0);
    expect(series(samples, "tunnel_gateway_account_balance_rubles")).toHaveLength(1);
  });
});
