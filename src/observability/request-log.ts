// The request log: one JSON line per finished or refused request, built field by field from what the
// gateway measured — never from raw headers, so neither the key nor the Authorization header can appear.
// Bodies are present only when the key's log_bodies switch and logging.bodies both allow them.

import { rublesForJson } from "../billing/money.js";
import type { FinishedRequest } from "../proxy/exchange.js";
import type { RefusedRequest } from "../proxy/forwarder.js";
import type { Logger } from "./logger.js";

export function logFinished(logger: Logger, request: FinishedRequest): void {
  logger.info(
    {
      request_id: request.requestId,
      key_id: request.keyId,
      key_name: request.keyName,
      account: request.accountId,
      method: request.method,
      path: request.path,
      model: request.model,
      endpoint_class: request.endpointClass,
      status: request.status,
      outcome: request.outcome,
      prompt_tokens: request.promptTokens,
      completion_tokens: request.completionTokens,
      cost_rub: rublesForJson(request.cost),
      usage_estimated: request.estimated,
      ...(request.usageRejected !== null && { usage_rejected: request.usageRejected }),
      ...(request.overage > 0 && { overage_rub: rublesForJson(request.overage) }),
      latency_ms: round(request.latencyMs),
      upstream_ttfb_ms: request.upstreamTtfbMs === null ? null : round(request.upstreamTtfbMs),
      gateway_ms: round(request.gatewayMs),
      ...(request.requestBody !== undefined && { request_body: request.requestBody }),
      ...(request.responseBody !== undefined && { response_body: request.responseBody }),
    },
    "request",
  );
}

export function logRefused(logger: Logger, request: RefusedRequest): void {
  logger.info(
    {
      request_id: request.requestId,
      key_id: request.keyId,
      account: request.accountId,
      method: request.method,
      path: request.path,
      model: request.model,
      status: request.status,
      code: request.code,
      gateway_ms: round(request.gatewayMs),
    },
    "request refused",
  );
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
