// One finished or refused request, as one record built once where the request ends (proxy/exchange.ts,
// proxy/forwarder.ts, server/public-server.ts, server/client-errors.ts). Everything else is derived from it
// by the small pure functions here and in metrics.ts: the log line, and the entry kept in the key's
// recent-requests list in Redis. A new field is added here and in the views that show it, nowhere else.

import { performance } from "node:perf_hooks";
import type { Charge } from "../billing/charge.js";
import type { EndpointClass } from "../core/endpoint-classes.js";
import type { ErrorCode } from "../core/errors.js";
import { type Micros, rublesForJson } from "../core/money.js";
import type { RecordOutcome } from "../core/outcome.js";
import { entryTime, type RequestLogEntry } from "../store/request-log-store.js";

/** A body's first `limit` bytes as text. */
export type BodyText = (limit: number) => string;

export interface RequestRecord {
  /** null for a request Node's HTTP parser refused before it had an id. */
  requestId: string | null;
  /** null when the request could not be parsed. */
  method: string | null;
  path: string | null;
  accountId: string | null;
  keyId: string | null;
  /** The key's name, known once its reservation is made. */
  keyName: string | null;
  model: string | null;
  endpointClass: EndpointClass | null;
  /** Status the client received; 499 when it went away before a response started. */
  status: number;
  outcome: RecordOutcome;
  /** The error table's code the gateway answered with itself (a refusal, a 502 or 504), else null. */
  code: ErrorCode | null;
  promptTokens: number;
  completionTokens: number;
  cost: Micros;
  estimated: boolean;
  usageRejected: Charge["rejected"];
  overage: Micros;
  reserved: Micros;
  /**
   * How a forwarded request was admitted: on the replica's admission lease (no Redis round trip before
   * forwarding) or by a reservation of its own; null for a request that was never admitted.
   */
  admission: "lease" | "reserve" | null;
  /** Wall-clock time the request ended (ms). */
  endedAt: number;
  latencyMs: number;
  upstreamTtfbMs: number | null;
  /** Time from arrival to forwarding (or to the refusal). */
  gatewayMs: number;
  /** The bodies, when the key's log_bodies allowed capturing them. */
  bodies: { request: BodyText; response: BodyText } | null;
}

/** A record of a request that reserved nothing and was charged nothing, with these fields set. */
export function emptyRecord(
  fields: Pick<RequestRecord, "requestId" | "method" | "path" | "status" | "outcome" | "endedAt"> &
    Partial<RequestRecord>,
): RequestRecord {
  return {
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
    ...fields,
  };
}

/**
 * The record of a request the gateway refused with an error of its table, before forwarding it (or on a
 * path it answers itself).
 */
export function refusalRecord(
  refusal: { status: number; code: ErrorCode },
  request: {
    requestId: string | null;
    method: string | null;
    path: string | null;
    arrivedAt: number | null;
    endedAt: number;
    model?: string | null;
    ref?: { accountId: string; keyId: string } | null;
  },
): RequestRecord {
  const gatewayMs = request.arrivedAt === null ? 0 : performance.now() - request.arrivedAt;
  return emptyRecord({
    requestId: request.requestId,
    method: request.method,
    path: request.path,
    accountId: request.ref?.accountId ?? null,
    keyId: request.ref?.keyId ?? null,
    model: request.model ?? null,
    status: refusal.status,
    outcome: "refused",
    code: refusal.code,
    endedAt: request.endedAt,
    latencyMs: gatewayMs,
    gatewayMs,
  });
}

/** The fields of the request's log line (pino); bodies only when `bodyLimit` is not null. */
export function logFields(record: RequestRecord, bodyLimit: number | null): Record<string, unknown> {
  if (record.outcome === "refused") {
    return {
      request_id: record.requestId,
      key_id: record.keyId,
      account: record.accountId,
      method: record.method,
      path: record.path,
      model: record.model,
      status: record.status,
      code: record.code,
      gateway_ms: round(record.gatewayMs),
    };
  }
  const fields: Record<string, unknown> = {
    request_id: record.requestId,
    key_id: record.keyId,
    key_name: record.keyName,
    account: record.accountId,
    method: record.method,
    path: record.path,
    model: record.model,
    endpoint_class: record.endpointClass,
    status: record.status,
    outcome: record.outcome,
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    cost_rub: rublesForJson(record.cost),
    usage_estimated: record.estimated,
  };
  if (record.usageRejected !== null) fields.usage_rejected = record.usageRejected;
  if (record.overage > 0) fields.overage_rub = rublesForJson(record.overage);
  fields.latency_ms = round(record.latencyMs);
  fields.upstream_ttfb_ms = record.upstreamTtfbMs === null ? null : round(record.upstreamTtfbMs);
  fields.gateway_ms = round(record.gatewayMs);
  if (record.bodies && bodyLimit !== null) {
    fields.request_body = record.bodies.request(bodyLimit);
    fields.response_body = record.bodies.response(bodyLimit);
  }
  return fields;
}

/** The request as kept in the key's recent-requests list (without bodies). */
export function recentRequest(record: RequestRecord): RequestLogEntry {
  return {
    at: entryTime(record.endedAt),
    request_id: record.requestId ?? "",
    method: record.method ?? "",
    path: record.path ?? "",
    model: record.model,
    status: record.status,
    outcome: record.outcome,
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    cost: rublesForJson(record.cost),
    usage_estimated: record.estimated,
    latency_ms: Math.round(record.latencyMs),
    upstream_ttfb_ms: record.upstreamTtfbMs === null ? null : Math.round(record.upstreamTtfbMs),
  };
}

/**
 * The recent-requests entry as JSON, without and with bodies cut to `bodyLimit` ("" when there are none to
 * keep): the settle script keeps the one the key's log_bodies allows when it runs. The entry is serialized
 * once; the bodies are added at its end.
 */
export function recentRequestJson(
  record: RequestRecord,
  bodyLimit: number,
): { entry: string; withBodies: string } {
  const entry = JSON.stringify(recentRequest(record));
  if (!record.bodies || bodyLimit <= 0) return { entry, withBodies: "" };
  const request = JSON.stringify(record.bodies.request(bodyLimit));
  const response = JSON.stringify(record.bodies.response(bodyLimit));
  return {
    entry,
    withBodies: `${entry.slice(0, -1)},"request_body":${request},"response_body":${response}}`,
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
