// What a key's own caller can see of its use, answered on the public port with the key as credential:
// GET /v1/requests/{request_id}, one of the key's recent requests and what it cost (from the key's
// recent-requests list, where the settlement puts it within milliseconds of the response's end; while this
// replica still holds its settlement — Redis away, no replica's acknowledgement yet — from that settlement,
// marked not yet settled), and
// GET /v1/usage?from=&to=, the key's usage per day in the billing time zone. Only the key's own requests:
// another key's request id is as unknown as one that never existed.

import type { IncomingMessage, ServerResponse } from "node:http";
import { GatewayError } from "../core/errors.js";
import { rublesForJson } from "../core/money.js";
import { sendJson } from "../http/respond.js";
import { UsageService } from "../services/usage.js";
import { CURRENCY, dailyUsageView } from "../services/views.js";
import type { RequestLogEntry } from "../store/usage/request-log-schema.js";
import { type LocalRoute, type LocalRouteDeps, usableKey } from "./local-routes.js";

const REQUESTS = "/v1/requests/";
const USAGE = "/v1/usage";
/** Most days one /v1/usage call covers. */
export const MAX_CALLER_USAGE_DAYS = 92;
/** What a request id can be (the X-Request-Id rule); anything else cannot be one of the key's requests. */
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The caller route for a path the exact-match table does not hold, or undefined (the path is forwarded). Two
 * string comparisons: it runs for every forwarded request.
 */
export function callerRoute(path: string): LocalRoute | undefined {
  if (path === USAGE) return usage;
  if (path.length > REQUESTS.length && path.startsWith(REQUESTS)) return request;
  return undefined;
}

async function request(req: IncomingMessage, res: ServerResponse, ctx: LocalRouteDeps): Promise<void> {
  const url = new URL(req.url ?? "/", "http://gateway.invalid");
  if (url.search !== "") throw new GatewayError("invalid_request", "This path takes no query parameters.");
  const { key } = await usableKey(req, ctx);
  const text = decoded(url.pathname.slice(REQUESTS.length));
  const id = text !== null && REQUEST_ID.test(text) ? text : null;
  const pending = id === null ? undefined : ctx.pending?.request(key.id, id);
  const entry =
    pending !== undefined
      ? (JSON.parse(pending.logEntry) as RequestLogEntry)
      : id === null
        ? null
        : await ctx.stores.requestLog.find(key.accountId, key.id, id);
  if (entry === null) throw new GatewayError("request_not_found");
  sendJson(res, 200, {
    id: entry.request_id,
    created_at: entry.at,
    model: entry.model,
    path: entry.path,
    status: entry.status,
    prompt_tokens: entry.prompt_tokens,
    cached_tokens: entry.cached_tokens ?? 0,
    completion_tokens: entry.completion_tokens,
    cost: entry.cost,
    currency: CURRENCY,
    usage_estimated: entry.usage_estimated,
    latency_ms: entry.latency_ms,
    queue_ms: entry.queue_ms ?? 0,
    settled: pending === undefined,
  });
}

async function usage(req: IncomingMessage, res: ServerResponse, ctx: LocalRouteDeps): Promise<void> {
  const { key } = await usableKey(req, ctx);
  const params = new URL(req.url ?? "/", "http://gateway.invalid").searchParams;
  for (const name of params.keys()) {
    if (name !== "from" && name !== "to") {
      throw new GatewayError("invalid_request", `Unknown parameter ${name}: /v1/usage takes from and to.`);
    }
  }
  const days = new UsageService(ctx.stores).days(
    params.get("from") ?? undefined,
    params.get("to") ?? undefined,
    MAX_CALLER_USAGE_DAYS,
  );
  const counters = await ctx.stores.usage.counters(key.accountId, [key.id], days);
  const views = days.map((date, d) => dailyUsageView(date, counters[d]?.[0] ?? {}));
  const total = { requests: 0, prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0, cost: 0, errors: 0 };
  let costMicros = 0;
  for (const [d, view] of views.entries()) {
    total.requests += view.requests;
    total.prompt_tokens += view.prompt_tokens;
    total.cached_tokens += view.cached_tokens;
    total.completion_tokens += view.completion_tokens;
    total.errors += view.errors;
    costMicros += counters[d]?.[0]?.cost ?? 0;
  }
  total.cost = rublesForJson(costMicros);
  sendJson(res, 200, {
    key_id: key.id,
    from: days[0],
    to: days.at(-1),
    timezone: ctx.stores.calendar.zone,
    currency: CURRENCY,
    days: views.map(({ date, requests, prompt_tokens, cached_tokens, completion_tokens, cost, errors }) => ({
      date,
      requests,
      prompt_tokens,
      cached_tokens,
      completion_tokens,
      cost,
      errors,
    })),
    total,
  });
}

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
