// The one request object: empty until the request path fills it in, refused with its code and the time it
// took, and ended with its times from arrival, forwarding and the first byte.

import { describe, expect, it } from "vitest";
import { GatewayRequest } from "../../src/core/request.js";

const ENDED = Date.parse("2026-11-21T10:00:00.123Z");

describe("GatewayRequest", () => {
  it("is a request that reserved, used and was charged nothing until its parts fill it in", () => {
    const request = new GatewayRequest(null, null, null, 0);
    request.refuse({ status: 400, code: "invalid_request" }, 5, 0);
    expect(request).toMatchObject({
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
      code: "invalid_request",
      promptTokens: 0,
      completionTokens: 0,
      cost: 0,
      estimated: false,
      usageRejected: null,
      overage: 0,
      reserved: 0,
      admission: null,
      leaseHold: null,
      latencyMs: 0,
      upstreamTtfbMs: null,
      gatewayMs: 0,
      bodies: null,
    });
  });

  it("records a refusal with its code, whose latency is the time from arrival", () => {
    const request = new GatewayRequest("req-1", "POST", "/v1/chat/completions", performance.now() - 20);
    request.ref = { accountId: "acme", keyId: "key_a" };
    request.model = "m";
    request.refuse({ status: 403, code: "budget_exceeded" }, ENDED, performance.now());
    expect(request).toMatchObject({
      status: 403,
      code: "budget_exceeded",
      outcome: "refused",
      accountId: "acme",
      keyId: "key_a",
      model: "m",
      cost: 0,
      endedAt: ENDED,
    });
    expect(request.gatewayMs).toBeGreaterThanOrEqual(20);
    expect(request.latencyMs).toBe(request.gatewayMs);
  });

  it("records a request refused before it had an arrival time, a key or a model", () => {
    const at = performance.now();
    const request = new GatewayRequest(null, null, null, at);
    request.refuse({ status: 400, code: "invalid_request" }, ENDED, at);
    expect(request).toMatchObject({ gatewayMs: 0, latencyMs: 0, accountId: null, keyId: null, model: null });
  });

  it("ends with its latency from arrival, the upstream's time to first byte, and the time until forwarding", () => {
    const forwarded = new GatewayRequest("req-1", "POST", "/v1/chat/completions", 1000);
    forwarded.forwardedAt = 1002;
    forwarded.firstByteAt = 1030;
    forwarded.end(ENDED, 1100);
    expect(forwarded).toMatchObject({ endedAt: ENDED, latencyMs: 100, upstreamTtfbMs: 28, gatewayMs: 2 });
    const unanswered = new GatewayRequest("req-2", "POST", "/v1/chat/completions", 1000);
    unanswered.end(ENDED, 1004);
    expect(unanswered).toMatchObject({ latencyMs: 4, upstreamTtfbMs: null, gatewayMs: 4 });
  });

  it("tells its wait for the model server, and leaves it out of the time the gateway adds", () => {
    const waited = new GatewayRequest("req-1", "POST", "/v1/chat/completions", 1000);
    expect(waited.queueMs).toBe(0);
    waited.queuedAt = 1002;
    // Still waiting: no wait to tell yet.
    expect(waited.queueMs).toBe(0);
    waited.dequeuedAt = 1052;
    waited.forwardedAt = 1053;
    waited.end(ENDED, 1100);
    expect(waited).toMatchObject({ queueMs: 50, gatewayMs: 3, latencyMs: 100 });
    const atOnce = new GatewayRequest("req-2", "POST", "/v1/chat/completions", 1000);
    atOnce.queuedAt = 1002;
    atOnce.dequeuedAt = 1002;
    expect(atOnce.queueMs).toBe(0);
  });
});
