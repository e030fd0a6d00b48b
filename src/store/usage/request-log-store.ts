// A key's recent requests: the entry a request becomes in the list (written by the settle script, derived here
// from the request by one pure function), and reading them back for the dashboard, the admin API and the
// caller's /v1/requests/{id}.

import { rublesForJson } from "../../core/money.js";
import type { GatewayRequest } from "../../core/request.js";
import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";
import type { RequestLogEntry } from "./request-log-schema.js";

let cachedSecond = Number.NaN;
let cachedPrefix = "";

/**
 * `new Date(ms).toISOString()`, for the `at` of an entry, without building a Date per request: the text up to
 * the second is kept from the previous call (requests finish many to a second), and only the milliseconds
 * are added: Date.prototype.toISOString stood out in the gateway's profile (npm run bench:profile).
 */
export function entryTime(time: number): string {
  const ms = Math.floor(time);
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    const iso = new Date(second * 1000).toISOString();
    // Outside years 0000–9999 the format differs; leave those to the Date.
    if (iso.length !== 24) return new Date(ms).toISOString();
    cachedSecond = second;
    cachedPrefix = iso.slice(0, 20);
  }
  const millis = ms - second * 1000;
  return `${cachedPrefix}${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`;
}

/** The request as kept in the key's recent-requests list (without bodies). */
export function recentRequest(request: GatewayRequest): RequestLogEntry {
  const entry: RequestLogEntry = {
    at: entryTime(request.endedAt),
    request_id: request.requestId ?? "",
    method: request.method ?? "",
    path: request.path ?? "",
    model: request.model,
    status: request.status,
    outcome: request.outcome,
    prompt_tokens: request.promptTokens,
    completion_tokens: request.completionTokens,
    cached_tokens: request.cachedTokens,
    cost: rublesForJson(request.cost),
    usage_estimated: request.estimated,
    latency_ms: Math.round(request.latencyMs),
    upstream_ttfb_ms: request.upstreamTtfbMs === null ? null : Math.round(request.upstreamTtfbMs),
  };
  if (request.cacheWriteTokens > 0) entry.cache_write_tokens = request.cacheWriteTokens;
  if (request.queuedAt > 0) entry.queue_ms = Math.round(request.queueMs);
  return entry;
}

/**
 * The recent-requests entry as JSON, without and with bodies cut to `bodyLimit` ("" when there are none to
 * keep): the settle script keeps the one the key's log_bodies allows when it runs. The entry is serialized
 * once; the bodies are added at its end.
 */
export function recentRequestJson(
  request: GatewayRequest,
  bodyLimit: number,
): { entry: string; withBodies: string } {
  const entry = JSON.stringify(recentRequest(request));
  if (!request.bodies || bodyLimit <= 0) return { entry, withBodies: "" };
  const body = JSON.stringify(request.bodies.request(bodyLimit));
  const response = JSON.stringify(request.bodies.response(bodyLimit));
  return {
    entry,
    withBodies: `${entry.slice(0, -1)},"request_body":${body},"response_body":${response}}`,
  };
}

export class RequestLogStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /**
   * The key's most recent request with this id, or null. Searched in Redis (findRequest-1.lua), so that only the
   * entry found crosses the network. Ids are tokens of [A-Za-z0-9._:@/+=-], which JSON writes as they are.
   */
  async find(accountId: string, keyId: string, requestId: string): Promise<RequestLogEntry | null> {
    const found = await runScript<string | null>(
      this.redis,
      "findRequest",
      [this.keys.requestLog(accountId, keyId)],
      [`"request_id":${JSON.stringify(requestId)},`],
    );
    return found ? (JSON.parse(found) as RequestLogEntry) : null;
  }

  /** Every request the key's list keeps (at most requestLog.maxPerKey), newest first. */
  async all(accountId: string, keyId: string): Promise<RequestLogEntry[]> {
    return this.recent(accountId, keyId, 0);
  }

  /** The key's most recent requests, newest first (all that are kept for a limit of 0). */
  async recent(accountId: string, keyId: string, limit: number): Promise<RequestLogEntry[]> {
    const raw = await this.redis.lrange(this.keys.requestLog(accountId, keyId), "0", String(limit - 1));
    return raw.map((line) => JSON.parse(line) as RequestLogEntry);
  }
}
