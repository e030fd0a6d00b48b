// A finished or refused request's log line, derived from the request by one pure function: a refusal's with
// the request, the key and the code; a finished request's with its tokens, cost and times; bodies only when
// allowed.

import { describe, expect, it } from "vitest";
import { logFields } from "../../src/observability/log-line.js";
import { BODIES as bodies, finishedRequest as finished } from "../helpers/requests.js";

describe("logFields", () => {
  it("gives a refusal's line the request, the key and the code, and nothing of money", () => {
    const refused = Object.assign(finished(), {
      outcome: "refused" as const,
      status: 402,
      code: "insufficient_balance" as const,
    });
    expect(logFields(refused, 1000)).toEqual({
      request_id: "req-1",
      key_id: "key_a",
      account: "acme",
      method: "POST",
      path: "/v1/chat/completions",
      model: "m",
      status: 402,
      code: "insufficient_balance",
      gateway_ms: 1.235,
    });
  });

  it("gives a finished request's line its tokens, cost in rubles and times rounded to microseconds", () => {
    expect(logFields(finished(), null)).toEqual({
      request_id: "req-1",
      key_id: "key_a",
      key_name: "prod",
      account: "acme",
      method: "POST",
      path: "/v1/chat/completions",
      model: "m",
      endpoint_class: "generation",
      status: 200,
      outcome: "completed",
      prompt_tokens: 12,
      completion_tokens: 7,
      cached_tokens: 0,
      cost_rub: 0.026,
      usage_estimated: false,
      latency_ms: 123.457,
      upstream_ttfb_ms: 30,
      gateway_ms: 1.235,
    });
  });

  it("adds the wait for the model server (queue_ms) to a line, refused or not, only where the request asked for a place", () => {
    const waited = finished({ queuedAt: 10, dequeuedAt: 260.0004 });
    expect(logFields(waited, null).queue_ms).toBe(250);
    const busy = finished({
      queuedAt: 10,
      dequeuedAt: 30_010,
      outcome: "refused",
      status: 429,
      code: "server_busy",
    });
    expect(logFields(busy, null)).toMatchObject({ code: "server_busy", queue_ms: 30_000 });
    expect(logFields(finished(), null)).not.toHaveProperty("queue_ms");
    expect(logFields(finished({ queuedAt: 10, dequeuedAt: 10 }), null).queue_ms).toBe(0);
  });

  it("adds why a report was not believed and the overage only when there are some", () => {
    const fields = logFields(
      finished({ usageRejected: "completion_above_cap", overage: 1500, estimated: true }),
      null,
    );
    expect(fields).toMatchObject({
      usage_rejected: "completion_above_cap",
      overage_rub: 0.0015,
      usage_estimated: true,
    });
    expect(logFields(finished(), null)).not.toHaveProperty("usage_rejected");
    expect(logFields(finished(), null)).not.toHaveProperty("overage_rub");
    expect(logFields(finished({ upstreamTtfbMs: null }), null).upstream_ttfb_ms).toBeNull();
  });

  it("adds the bodies, cut to the limit, only when they were captured and logging them is on", () => {
    expect(logFields(finished({ bodies }), 8)).toMatchObject({
      request_body: '{"model"',
      response_body: '{"choice',
    });
    expect(logFields(finished({ bodies }), null)).not.toHaveProperty("request_body");
    expect(logFields(finished(), 8)).not.toHaveProperty("request_body");
    const refused = Object.assign(finished({ bodies }), { outcome: "refused" as const });
    expect(logFields(refused, 8)).not.toHaveProperty("request_body");
  });

  it("adds the trace's ids to a traced request's line, finished or refused, and not when it went unsampled", () => {
    const trace = (sampled: boolean) => ({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      sampled,
      forwarding() {},
    });
    const ids = { trace_id: "0af7651916cd43dd8448eb211c80319c", span_id: "b7ad6b7169203331" };
    expect(logFields(Object.assign(finished(), { trace: trace(true) }), null)).toMatchObject(ids);
    const refused = Object.assign(finished(), {
      outcome: "refused" as const,
      code: "invalid_api_key" as const,
    });
    expect(logFields(Object.assign(refused, { trace: trace(true) }), null)).toMatchObject(ids);
    const unsampled = logFields(Object.assign(finished(), { trace: trace(false) }), null);
    expect([unsampled.trace_id, unsampled.span_id]).toEqual([undefined, undefined]);
    expect(Object.keys(logFields(finished(), null))).not.toContain("trace_id");
  });
});
