// One finished or refused request as one record, and what is derived from it by small pure functions: the
// log line's fields (bodies only when allowed), and the entry kept in the key's recent-requests list, once
// without and once with its bodies.

import { describe, expect, it } from "vitest";
import {
  emptyRecord,
  logFields,
  type RequestRecord,
  recentRequest,
  recentRequestJson,
  refusalRecord,
} from "../../src/observability/request-record.js";

const ENDED = Date.parse("2026-11-21T10:00:00.123Z");

function finished(over: Partial<RequestRecord> = {}): RequestRecord {
  return emptyRecord({
    requestId: "req-1",
    method: "POST",
    path: "/v1/chat/completions",
    status: 200,
    outcome: "completed",
    endedAt: ENDED,
    accountId: "acme",
    keyId: "key_a",
    keyName: "prod",
    model: "m",
    endpointClass: "generation",
    promptTokens: 12,
    completionTokens: 7,
    cost: 26_000,
    reserved: 100_000,
    latencyMs: 123.45678,
    upstreamTtfbMs: 30.0004,
    gatewayMs: 1.23456,
    ...over,
  });
}

const bodies = {
  request: (limit: number) => '{"model":"m"}'.slice(0, limit),
  response: (limit: number) => '{"choices":[]}'.slice(0, limit),
};

describe("emptyRecord", () => {
  it("is a request that reserved, used and was charged nothing, with the fields given", () => {
    const record = emptyRecord({
      requestId: null,
      method: null,
      path: null,
      status: 400,
      outcome: "refused",
      endedAt: 5,
    });
    expect(record).toEqual({
      requestId: null,
      method: null,
      path: null,
      status: 400,
      outcome: "refused",
      endedAt: 5,
      accountId: null,
      keyId: null,
      keyName: null,
      model: null,
      endpointClass: null,
      code: null,
      promptTokens: 0,
      completionTokens: 0,
      cost: 0,
      estimated: false,
      usageRejected: null,
      overage: 0,
      reserved: 0,
      admission: null,
      latencyMs: 0,
      upstreamTtfbMs: null,
      gatewayMs: 0,
      bodies: null,
    });
  });
});

describe("refusalRecord", () => {
  it("records a refusal with its code, whose latency is the time from arrival", () => {
    const record = refusalRecord(
      { status: 403, code: "budget_exceeded" },
      {
        requestId: "req-1",
        method: "POST",
        path: "/v1/chat/completions",
        arrivedAt: performance.now() - 20,
        endedAt: ENDED,
        model: "m",
        ref: { accountId: "acme", keyId: "key_a" },
      },
    );
    expect(record).toMatchObject({
      status: 403,
      code: "budget_exceeded",
      outcome: "refused",
      accountId: "acme",
      keyId: "key_a",
      model: "m",
      cost: 0,
      endedAt: ENDED,
    });
    expect(record.gatewayMs).toBeGreaterThanOrEqual(20);
    expect(record.latencyMs).toBe(record.gatewayMs);
  });

  it("records a request refused before it had an arrival time, a key or a model", () => {
    const record = refusalRecord(
      { status: 400, code: "invalid_request" },
      { requestId: null, method: null, path: null, arrivedAt: null, endedAt: ENDED },
    );
    expect(record).toMatchObject({ gatewayMs: 0, latencyMs: 0, accountId: null, keyId: null, model: null });
  });
});

describe("logFields", () => {
  it("gives a refusal's line the request, the key and the code, and nothing of money", () => {
    const refused = {
      ...finished(),
      outcome: "refused" as const,
      status: 402,
      code: "insufficient_balance" as const,
    };
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
      cost_rub: 0.026,
      usage_estimated: false,
      latency_ms: 123.457,
      upstream_ttfb_ms: 30,
      gateway_ms: 1.235,
    });
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
    const refused = { ...finished({ bodies }), outcome: "refused" as const };
    expect(logFields(refused, 8)).not.toHaveProperty("request_body");
  });
});

describe("recentRequest", () => {
  it("is the entry of the key's recent-requests list: ISO time, rubles, whole milliseconds, no bodies", () => {
    expect(recentRequest(finished({ bodies }))).toEqual({
      at: "2026-11-21T10:00:00.123Z",
      request_id: "req-1",
      method: "POST",
      path: "/v1/chat/completions",
      model: "m",
      status: 200,
      outcome: "completed",
      prompt_tokens: 12,
      completion_tokens: 7,
      cost: 0.026,
      usage_estimated: false,
      latency_ms: 123,
      upstream_ttfb_ms: 30,
    });
  });

  it("writes what a request refused unparsed did not have as empty text", () => {
    const entry = recentRequest(
      emptyRecord({
        requestId: null,
        method: null,
        path: null,
        status: 400,
        outcome: "refused",
        endedAt: ENDED,
      }),
    );
    expect(entry).toMatchObject({
      request_id: "",
      method: "",
      path: "",
      model: null,
      upstream_ttfb_ms: null,
    });
  });
});

describe("recentRequestJson", () => {
  it("is the entry as JSON, and the same with the bodies cut to the limit at its end", () => {
    const { entry, withBodies } = recentRequestJson(finished({ bodies }), 8);
    expect(entry).toBe(JSON.stringify(recentRequest(finished())));
    expect(withBodies.startsWith(entry.slice(0, -1))).toBe(true);
    expect(JSON.parse(withBodies)).toEqual({
      ...JSON.parse(entry),
      request_body: '{"model"',
      response_body: '{"choice',
    });
  });

  it("has no entry with bodies when none were captured or none may be kept", () => {
    expect(recentRequestJson(finished(), 8).withBodies).toBe("");
    expect(recentRequestJson(finished({ bodies }), 0).withBodies).toBe("");
  });

  it("escapes bodies so that the entry stays one JSON document", () => {
    const tricky = { request: () => '"},"cost":0,"x":"\n', response: () => "\u2028</script>" };
    const { withBodies } = recentRequestJson(finished({ bodies: tricky }), 100);
    const parsed = JSON.parse(withBodies);
    expect(parsed.cost).toBe(0.026);
    expect(parsed.request_body).toBe('"},"cost":0,"x":"\n');
    expect(parsed.response_body).toBe("\u2028</script>");
  });
});
