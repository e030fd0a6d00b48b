// The request's log line (the fields log-line.ts defines) written as text in one pass, byte for byte what
// pino writes for logger.info(logFields(request), message): pino's generic writer walks the fields object
// key by key, checking serializers and stringifiers and escaping each key, and that walk, with the object,
// was the largest share of the gateway's own CPU per request after Redis (npm run bench:profile). Time,
// level, bindings and the line's end are still pino's (its cached fragments); a logger configured in any
// way this does not reproduce (a mixin, formatters.log, hooks, a prefix, a nested key, redaction, a
// serializer for one of these fields, a stream that wants metadata, or a subscriber to pino's asJson
// channel) gets pino's own writer. The tests hold the text to pino's for arbitrary requests.

import { tracingChannel } from "node:diagnostics_channel";
import { type Logger, symbols } from "pino";
import { rublesForJson } from "../core/money.js";
import type { GatewayRequest, RequestTrace } from "../core/request.js";
import { logFields } from "./log-line.js";

/** Writes the request's line at info with this message; bodies only when `bodyLimit` is not null. */
export type RequestLineWriter = (request: GatewayRequest, bodyLimit: number | null, message: string) => void;

/** The fields of the lines (log-line.ts), which pino would pass through a serializer of the same name. */
const FIELDS = new Set([
  "request_id",
  "key_id",
  "key_name",
  "account",
  "method",
  "path",
  "model",
  "endpoint_class",
  "status",
  "code",
  "outcome",
  "prompt_tokens",
  "completion_tokens",
  "cached_tokens",
  "cost_rub",
  "usage_estimated",
  "cache_write_tokens",
  "usage_rejected",
  "overage_rub",
  "latency_ms",
  "upstream_ttfb_ms",
  "gateway_ms",
  "queue_ms",
  "trace_id",
  "span_id",
  "request_body",
  "response_body",
]);

// pino traces its line assembly on this channel; while anyone listens, lines go through pino.
const asJsonChannel = tracingChannel("pino_asJson");

type Internals = Record<symbol, unknown>;

export function requestLineWriter(logger: Logger): RequestLineWriter {
  const viaPino: RequestLineWriter = (request, bodyLimit, message) =>
    logger.info(logFields(request, bodyLimit), message);
  const internals = logger as unknown as Internals;
  if (!plain(internals)) return viaPino;
  const info = logger.levels.values.info as number;
  const levelPrefix = (internals[symbols.lsCacheSym] as Record<number, string>)[info] as string;
  const time = internals[symbols.timeSym] as () => string;
  const messageKey = asString(internals[symbols.messageKeySym] as string);
  const end = internals[symbols.endSym] as string;
  const messages = new Map<string, string>();
  return (request, bodyLimit, message) => {
    if (!logger.isLevelEnabled("info")) return;
    if (asJsonChannel.hasSubscribers) return viaPino(request, bodyLimit, message);
    let tail = messages.get(message);
    if (tail === undefined) {
      tail = `,${messageKey}:${asString(message)}${end}`;
      messages.set(message, tail);
    }
    const stream = internals[symbols.streamSym] as { write(line: string): void };
    // Read per line, as pino does: the logger's bindings can change (logger.setBindings).
    const bindings = internals[symbols.chindingsSym] as string;
    stream.write(`${levelPrefix}${time()}${bindings}${fieldsText(request, bodyLimit)}${tail}`);
  };
}

/** Whether pino would write the fields of a request line as they are, with no setting changing them. */
function plain(logger: Internals): boolean {
  const formatters = logger[symbols.formattersSym] as { log?: unknown } | undefined;
  const hooks = logger[symbols.hooksSym] as { streamWrite?: unknown } | undefined;
  const stringifiers = logger[symbols.stringifiersSym] as Record<string | symbol, unknown> | undefined;
  const serializers = logger[symbols.serializersSym] as Record<string, unknown> | undefined;
  const stream = logger[symbols.streamSym] as Record<symbol, unknown> | undefined;
  return (
    typeof logger[symbols.timeSym] === "function" &&
    typeof logger[symbols.endSym] === "string" &&
    typeof logger[symbols.messageKeySym] === "string" &&
    typeof logger[symbols.chindingsSym] === "string" &&
    typeof (logger[symbols.lsCacheSym] as Record<number, unknown> | undefined)?.[30] === "string" &&
    formatters !== undefined &&
    formatters.log === undefined &&
    hooks !== undefined &&
    hooks.streamWrite === undefined &&
    !logger[symbols.mixinSym] &&
    typeof logger[(symbols as unknown as Record<string, symbol>).msgPrefixSym as symbol] !== "string" &&
    !logger[symbols.nestedKeySym] &&
    stringifiers !== undefined &&
    Object.keys(stringifiers).length === 0 &&
    !stringifiers[symbols.wildcardFirstSym] &&
    serializers !== undefined &&
    Object.keys(serializers).every((name) => !FIELDS.has(name)) &&
    logger[symbols.errorKeySym] === "err" &&
    stream !== undefined &&
    stream[symbols.needsMetadataGsym] !== true
  );
}

/** logFields(request, bodyLimit) as pino writes an object's fields: `,"name":value` each, in its order. */
function fieldsText(request: GatewayRequest, bodyLimit: number | null): string {
  if (request.outcome === "refused") {
    let line = `,"request_id":${text(request.requestId)},"key_id":${text(request.keyId)},"account":${text(request.accountId)},"method":${text(request.method)},"path":${text(request.path)},"model":${text(request.model)},"status":${num(request.status)},"code":${text(request.code)},"gateway_ms":${num(round(request.gatewayMs))}`;
    if (request.queuedAt > 0) line += `,"queue_ms":${num(round(request.queueMs))}`;
    return line + traced(request.trace);
  }
  let line = `,"request_id":${text(request.requestId)},"key_id":${text(request.keyId)},"key_name":${text(request.keyName)},"account":${text(request.accountId)},"method":${text(request.method)},"path":${text(request.path)},"model":${text(request.model)},"endpoint_class":${text(request.endpointClass)},"status":${num(request.status)},"outcome":${text(request.outcome)},"prompt_tokens":${num(request.promptTokens)},"completion_tokens":${num(request.completionTokens)},"cached_tokens":${num(request.cachedTokens)},"cost_rub":${num(rublesForJson(request.cost))},"usage_estimated":${request.estimated}`;
  if (request.cacheWriteTokens > 0) line += `,"cache_write_tokens":${num(request.cacheWriteTokens)}`;
  if (request.usageRejected !== null) line += `,"usage_rejected":${text(request.usageRejected)}`;
  if (request.overage > 0) line += `,"overage_rub":${num(rublesForJson(request.overage))}`;
  const ttfb = request.upstreamTtfbMs;
  line += `,"latency_ms":${num(round(request.latencyMs))},"upstream_ttfb_ms":${ttfb === null ? "null" : num(round(ttfb))},"gateway_ms":${num(round(request.gatewayMs))}`;
  if (request.queuedAt > 0) line += `,"queue_ms":${num(round(request.queueMs))}`;
  line += traced(request.trace);
  if (request.bodies && bodyLimit !== null) {
    line += `,"request_body":${text(request.bodies.request(bodyLimit))},"response_body":${text(request.bodies.response(bodyLimit))}`;
  }
  return line;
}

function traced(trace: RequestTrace | null): string {
  return trace === null || !trace.sampled
    ? ""
    : `,"trace_id":${text(trace.traceId)},"span_id":${text(trace.spanId)}`;
}

function text(value: string | null): string {
  return value === null ? "null" : asString(value);
}

/** A number as pino writes it: null for NaN and the infinities. */
function num(value: number): string {
  return Number.isFinite(value) ? `${value}` : "null";
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * A string as pino writes it (pino/lib/tools.js asString, copied to be byte for byte the same): quotes and
 * backslashes escaped by hand in short strings without control characters, JSON.stringify otherwise. Unlike
 * JSON.stringify it leaves a lone surrogate in a short string as it is.
 */
function asString(str: string): string {
  const length = str.length;
  if (length > 100) return JSON.stringify(str);
  let result = "";
  let last = 0;
  let found = false;
  let point = 255;
  for (let i = 0; i < length && point >= 32; i++) {
    point = str.charCodeAt(i);
    if (point === 34 || point === 92) {
      result += `${str.slice(last, i)}\\`;
      last = i;
      found = true;
    }
  }
  if (point < 32) return JSON.stringify(str);
  return `"${found ? result + str.slice(last) : str}"`;
}
