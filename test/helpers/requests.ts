// Requests (core/request.ts) with the fields a test gives, as the request path would have left them: the
// stand-in for a finished or refused request in tests of what reads one (the log line, the metrics, the
// recent-requests entry, the observer).

import type { KeyRef } from "../../src/core/key-ref.js";
import { GatewayRequest, type RequestBodies } from "../../src/core/request.js";

type Writable = { -readonly [K in keyof GatewayRequest]: GatewayRequest[K] };

export type RequestFields = Partial<Omit<Writable, "accountId" | "keyId" | "end" | "refuse">> & {
  /** With keyId, the request's key (its ref). */
  accountId?: string | null;
  keyId?: string | null;
};

export function requestWith(fields: RequestFields): GatewayRequest {
  const { requestId = null, method = null, path = null, arrivedAt = 0, accountId, keyId, ...rest } = fields;
  const request = new GatewayRequest(requestId, method, path, arrivedAt);
  if (accountId != null && keyId != null) request.ref = { accountId, keyId } satisfies KeyRef;
  return Object.assign(request, rest);
}

/** When finishedRequest's request ended. */
export const ENDED = Date.parse("2026-11-21T10:00:00.123Z");

/** A completed request of key_a (prod) of account acme for model m, charged 26 000 µ₽. */
export function finishedRequest(over: RequestFields = {}): GatewayRequest {
  return requestWith({
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

/** Captured bodies, as the exchange leaves them on a request of a key that logs them. */
export const BODIES: RequestBodies = {
  request: (limit: number) => '{"model":"m"}'.slice(0, limit),
  response: (limit: number) => '{"choices":[]}'.slice(0, limit),
};
