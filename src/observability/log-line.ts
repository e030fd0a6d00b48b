// The fields of a request's log line (pino), derived from the request (core/request.ts) by one pure function:
// a refusal's line carries the request, the key and the code; a finished request's its tokens, cost and times
// (and its bodies only where logging.bodies allows them); where upstream.maxInFlight is set, either carries
// its wait for the model server (queue_ms); a traced request's line carries its trace_id and span_id, so that
// a line, its trace and the metrics meet.

import { rublesForJson } from "../core/money.js";
import type { GatewayRequest, RequestTrace } from "../core/request.js";

/** The fields of the request's log line (pino); bodies only when `bodyLimit` is not null. */
export function logFields(request: GatewayRequest, bodyLimit: number | null): Record<string, unknown> {
  if (request.outcome === "refused") {
    const refused: Record<string, unknown> = {
      request_id: request.requestId,
      key_id: request.keyId,
      account: request.accountId,
      method: request.method,
      path: request.path,
      model: request.model,
      status: request.status,
      code: request.code,
      gateway_ms: round(request.gatewayMs),
      ...(request.queuedAt > 0 && { queue_ms: round(request.queueMs) }),
    };
    traced(refused, request.trace);
    return refused;
  }
  const fields: Record<string, unknown> = {
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
    cached_tokens: request.cachedTokens,
    cost_rub: rublesForJson(request.cost),
    usage_estimated: request.estimated,
  };
  if (request.cacheWriteTokens > 0) fields.cache_write_tokens = request.cacheWriteTokens;
  if (request.usageRejected !== null) fields.usage_rejected = request.usageRejected;
  if (request.overage > 0) fields.overage_rub = rublesForJson(request.overage);
  fields.latency_ms = round(request.latencyMs);
  fields.upstream_ttfb_ms = request.upstreamTtfbMs === null ? null : round(request.upstreamTtfbMs);
  fields.gateway_ms = round(request.gatewayMs);
  if (request.queuedAt > 0) fields.queue_ms = round(request.queueMs);
  traced(fields, request.trace);
  if (request.bodies && bodyLimit !== null) {
    fields.request_body = request.bodies.request(bodyLimit);
    fields.response_body = request.bodies.response(bodyLimit);
  }
  return fields;
}

/** The ids that find the request's trace, when it was recorded (OpenTelemetry's log correlation fields). */
function traced(fields: Record<string, unknown>, trace: RequestTrace | null): void {
  if (trace === null || !trace.sampled) return;
  fields.trace_id = trace.traceId;
  fields.span_id = trace.spanId;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
