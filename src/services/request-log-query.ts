// Finding requests in the recent-requests lists the settle script keeps: a key's, filtered (status, model,
// days, request id) and paged for its page in the dashboard, and an account's over a range of days for the
// CSV export. The lists hold each key's latest requestLog.maxPerKey requests, so this is what is kept, not
// every request ever made (that is the gateway's log, one line per request); the pages say so.

import { GatewayError } from "../core/errors.js";
import { dayStamp } from "../core/periods.js";
import type { RequestLogEntry } from "../store/usage/request-log-schema.js";

/** Status classes a request can be filtered by; a three-digit code filters by that code. */
export const STATUS_FILTERS = ["ok", "error", "2xx", "4xx", "5xx"] as const;

export interface RequestFilter {
  /** "ok" (2xx and completed), "error" (any other), a class such as "4xx", or one code such as "429". */
  status?: string;
  /** Exact model name; "" for requests without one. */
  model?: string;
  /** First and last day, YYYY-MM-DD in the billing time zone. */
  from?: string;
  to?: string;
  /** Part of the request id, case-insensitive. */
  requestId?: string;
}

/** Checks a filter's values before anything is read, naming what is wrong. */
export function checkFilter(filter: RequestFilter): void {
  const { status } = filter;
  if (
    status !== undefined &&
    !(STATUS_FILTERS as readonly string[]).includes(status) &&
    !/^[1-5]\d\d$/.test(status)
  ) {
    throw new GatewayError(
      "invalid_request",
      `status must be one of ${STATUS_FILTERS.join(", ")} or a status code such as 429; got ${JSON.stringify(status)}`,
    );
  }
  for (const [name, day] of [
    ["from", filter.from],
    ["to", filter.to],
  ] as const) {
    if (day !== undefined && !isDay(day)) {
      throw new GatewayError(
        "invalid_request",
        `${name} must be a date as YYYY-MM-DD; got ${JSON.stringify(day)}`,
      );
    }
  }
  if (filter.from !== undefined && filter.to !== undefined && filter.from > filter.to) {
    throw new GatewayError("invalid_request", `from (${filter.from}) must not be after to (${filter.to})`);
  }
}

function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

function statusMatches(entry: RequestLogEntry, status: string): boolean {
  const ok = entry.status < 400 && entry.outcome === "completed";
  switch (status) {
    case "ok":
      return ok;
    case "error":
      return !ok;
    case "2xx":
    case "4xx":
    case "5xx":
      return Math.floor(entry.status / 100) === Number(status[0]);
    default:
      return entry.status === Number(status);
  }
}

/** A predicate for the entries that pass the filter; days are read in `zone`. */
export function matcher(filter: RequestFilter, zone: string): (entry: RequestLogEntry) => boolean {
  const needle = filter.requestId?.toLowerCase();
  return (entry) => {
    if (filter.status !== undefined && !statusMatches(entry, filter.status)) return false;
    if (filter.model !== undefined && (entry.model ?? "") !== filter.model) return false;
    if (needle && !entry.request_id.toLowerCase().includes(needle)) return false;
    if (filter.from !== undefined || filter.to !== undefined) {
      const day = dayStamp(Date.parse(entry.at), zone);
      if (filter.from !== undefined && day < filter.from) return false;
      if (filter.to !== undefined && day > filter.to) return false;
    }
    return true;
  };
}

export interface RequestPage {
  requests: RequestLogEntry[];
  /** How many kept requests pass the filter. */
  total: number;
  offset: number;
  limit: number;
  /** The models of the key's kept requests (null: none named), for the filter's choices. */
  models: (string | null)[];
}

/** One page of the entries (newest first) that pass the filter. */
export function pageOf(
  entries: readonly RequestLogEntry[],
  filter: RequestFilter,
  zone: string,
  offset: number,
  limit: number,
): RequestPage {
  const matching = entries.filter(matcher(filter, zone));
  const models = [...new Set(entries.map((entry) => entry.model))].sort((a, b) =>
    (a ?? "").localeCompare(b ?? ""),
  );
  return { requests: matching.slice(offset, offset + limit), total: matching.length, offset, limit, models };
}
