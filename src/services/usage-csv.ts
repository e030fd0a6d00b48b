// The account's CSV exports: daily usage per key and model, and the kept requests of a range of days. RFC 4180
// (CRLF, fields with a comma, quote or line break quoted), costs as exact decimal rubles, and text that
// people chose (key names, models, paths, request ids) defused against spreadsheet formulas: a cell that
// starts with = + - @ or a tab gets a leading apostrophe (OWASP's advice), so opening the file runs nothing.

import { formatRubles, microsFromJson } from "../core/money.js";
import type { KeyRecord } from "../store/records.js";
import type { RequestLogEntry } from "../store/usage/request-log-schema.js";
import { modelShares, type UsageTable } from "./account-usage.js";

export const USAGE_CSV_COLUMNS = [
  "date",
  "key_id",
  "key_name",
  "model",
  "requests",
  "prompt_tokens",
  "cached_tokens",
  "completion_tokens",
  "cost_rub",
] as const;

export const REQUESTS_CSV_COLUMNS = [
  "at",
  "request_id",
  "key_id",
  "key_name",
  "method",
  "path",
  "model",
  "status",
  "outcome",
  "prompt_tokens",
  "cached_tokens",
  "completion_tokens",
  "cost_rub",
  "usage_estimated",
  "latency_ms",
  "upstream_ttfb_ms",
  "queue_ms",
] as const;

/** What the model column says for the requests of models beyond the usage hash's cap. */
export const OTHER_MODELS = "(other models)";

/** A number cell, or a text cell quoted when it must be and defused when it could be a formula. */
export function cell(value: string | number | boolean | null): string {
  if (value === null) return "";
  if (typeof value !== "string") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function line(cells: readonly (string | number | boolean | null)[]): string {
  return `${cells.map(cell).join(",")}\r\n`;
}

/** One line per day, key and model that counts anything: oldest day first, then keys by name, then models. */
export function usageCsv(table: UsageTable): string {
  let out = line(USAGE_CSV_COLUMNS);
  // Keys by name, then id: the store lists them in no order a reader could rely on.
  const order = table.keys
    .map((key, k) => ({ key, k }))
    .sort((a, b) => a.key.name.localeCompare(b.key.name) || a.key.id.localeCompare(b.key.id));
  table.days.forEach((date, d) => {
    order.forEach(({ key, k }) => {
      const shares = [...modelShares(table.counters[d]?.[k] ?? {})].sort(([a], [b]) => a.localeCompare(b));
      for (const [prefix, counters] of shares) {
        // Every line that counts something, so that the lines always sum to the day's totals.
        if (Object.values(counters).every((value) => value === 0)) continue;
        const model = prefix === "mx:" ? OTHER_MODELS : prefix.slice(2, -1);
        out += line([
          date,
          key.id,
          key.name,
          model,
          counters.requests,
          counters.prompt_tokens,
          counters.cached_tokens,
          counters.completion_tokens,
          formatRubles(counters.cost),
        ]);
      }
    });
  });
  return out;
}

/** The requests, newest first, each with its key. */
export function requestsCsv(rows: readonly { key: KeyRecord; entry: RequestLogEntry }[]): string {
  let out = line(REQUESTS_CSV_COLUMNS);
  for (const { key, entry } of rows) {
    out += line([
      entry.at,
      entry.request_id,
      key.id,
      key.name,
      entry.method,
      entry.path,
      entry.model,
      entry.status,
      entry.outcome,
      entry.prompt_tokens,
      entry.cached_tokens ?? 0,
      entry.completion_tokens,
      formatRubles(microsFromJson(entry.cost)),
      entry.usage_estimated,
      entry.latency_ms,
      entry.upstream_ttfb_ms,
      entry.queue_ms ?? null,
    ]);
  }
  return out;
}
