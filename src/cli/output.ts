// How the CLI prints: one JSON document with --json, readable lines otherwise. Errors go to stderr as one
// line (a JSON error object with --json).

import { ConfigError } from "../config/config-error.js";
import type { BudgetWindowView } from "../core/budget-window-schema.js";
import { currentWindowSpent } from "../core/budget-windows.js";
import { asGatewayError, errorBody, GatewayError } from "../core/errors.js";
import { formatRubles } from "../core/money.js";
import type { PeriodCalendar } from "../core/periods.js";
import type { AccountView } from "../services/account-schema.js";
import type { UsageDay } from "../services/usage.js";
import { sumCounters } from "../services/usage.js";
import {
  CURRENCY,
  type KeyView,
  keyState,
  type LimitsView,
  limitsView,
  requestsOf,
} from "../services/views.js";
import type { KeyRecord } from "../store/records.js";

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLines(...lines: string[]): void {
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** Prints why a command failed as one line on stderr: `error: …`, or the error table's JSON shape with --json. */
export function printFailure(error: unknown, json: boolean): void {
  const failure = asCliFailure(error);
  const line = json ? errorBody(failure) : `error: ${failure.message.replace(/\s*\n\s*/g, " ")}`;
  process.stderr.write(`${line}\n`);
}

/** A row of the error table for any failure, keeping the message that says what went wrong. */
function asCliFailure(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  // A bad file, TUNNEL_* variable or flag is bad input to the CLI; the message names where and which setting.
  if (error instanceof ConfigError)
    return new GatewayError("invalid_request", error.message, { cause: error });
  const failure = asGatewayError(error);
  if (failure.code !== "internal_error") return failure;
  // A bug: say what it was rather than the table's generic "internal error".
  const message = error instanceof Error ? error.message : String(error);
  return new GatewayError("internal_error", message, { cause: error });
}

export function describeAccount(account: AccountView): string[] {
  const lines = [
    `account  ${account.id}`,
    `name     ${account.name}`,
    `balance  ${account.balance} ${account.currency}`,
    `created  ${account.created_at}`,
    `sharing  ${sharingText(account.sharing)}`,
  ];
  // A prepaid account without windows reads as it always did.
  if (account.billing !== "prepaid" || account.budgets.length > 0) {
    lines.push(`billing  ${BILLING_TEXT[account.billing]}`);
    for (const window of account.budgets) lines.push(`budget   ${windowText(window, account.currency)}`);
  }
  return lines;
}

const BILLING_TEXT: Record<AccountView["billing"], string> = {
  prepaid: "prepaid: the balance limits the keys",
  budgeted: "budgeted: the account's budgets alone limit the keys; no balance is needed",
  both: "both: the account's budgets and its balance limit the keys",
};

/** `12.5 of 100 RUB spent this day, 87.5 left, resets 2026-11-22T00:00:00.000Z` */
function windowText(window: BudgetWindowView, currency: string): string {
  return (
    `${window.spent} of ${window.amount} ${currency} spent this ${window.period}, ` +
    `${window.remaining} left, resets ${window.resets_at}`
  );
}

/** `weight 3, priority 1, max wait 5000 ms`, with only the weight when the account sets nothing else. */
function sharingText(sharing: AccountView["sharing"]): string {
  const parts = [`weight ${sharing.weight}`];
  if (sharing.priority !== null) parts.push(`priority ${sharing.priority}`);
  if (sharing.max_wait_ms !== null) parts.push(`max wait ${sharing.max_wait_ms} ms`);
  return parts.join(", ");
}

/** Rows under a header row, columns padded to their widest cell; `right` columns are aligned right. */
export function formatTable(
  header: string[],
  rows: string[][],
  right: ReadonlySet<number> = new Set(),
): string[] {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (right.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** Longest name shown in a table; longer ones are cut with an ellipsis (the JSON output has them whole). */
const TABLE_NAME_LENGTH = 32;

/** `keys list`: one line per key, so that two keys of the same name are told apart by id and hint. */
export function keyTable(keys: readonly KeyRecord[], now: number, calendar: PeriodCalendar): string[] {
  const rows = keys.map((key) => [
    key.id,
    `…${key.hint}`,
    key.name.length > TABLE_NAME_LENGTH ? `${key.name.slice(0, TABLE_NAME_LENGTH - 1)}…` : key.name,
    keyState(key, now),
    limitsText(limitsView(key), "short"),
    key.budget === null
      ? "none"
      : `${formatRubles(currentWindowSpent(key, calendar.at(now)[key.period].start))}/${formatRubles(key.budget)} ${CURRENCY} a ${key.period}`,
    key.expiresAt === null ? "never" : minute(key.expiresAt),
  ]);
  return formatTable(["ID", "HINT", "NAME", "STATE", "LIMITS", "BUDGET SPENT/LIMIT", "EXPIRES"], rows);
}

const USAGE_COLUMNS = [
  "date",
  "requests",
  "prompt_tokens",
  "cached_tokens",
  "completion_tokens",
  "cost_rub",
  "errors",
];

function usageCells(date: string, counters: UsageDay["counters"]): string[] {
  const int = (field: string) => String(counters[field] ?? 0);
  return [
    date,
    String(requestsOf(counters)),
    int("prompt_tokens"),
    int("cached_tokens"),
    int("completion_tokens"),
    formatRubles(counters.cost ?? 0),
    int("errors"),
  ];
}

/** `usage`: a day per line and the total, costs exact to the micro-ruble. */
export function usageTable(days: readonly UsageDay[]): string[] {
  const rows = days.map((day) => usageCells(day.date, day.counters));
  rows.push(usageCells("total", sumCounters(days.map((day) => day.counters))));
  const header = [
    "DATE",
    "REQUESTS",
    "PROMPT TOKENS",
    "CACHED TOKENS",
    "COMPLETION TOKENS",
    `COST ${CURRENCY}`,
    "ERRORS",
  ];
  return formatTable(header, rows, new Set([1, 2, 3, 4, 5, 6]));
}

/** `usage --csv`: a header line and a day per line (no total: a spreadsheet sums for itself). */
export function usageCsv(days: readonly UsageDay[]): string[] {
  return [USAGE_COLUMNS.join(","), ...days.map((day) => usageCells(day.date, day.counters).join(","))];
}

/** 2026-11-23 20:39 UTC */
function minute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function describeKey(key: KeyView & { revoked_at?: string | null }, hint?: string): string[] {
  const budgets = key.budgets.map((window) => `budget   ${windowText(window, key.currency)}`);
  const lines = [
    `key      ${key.id}${hint === undefined ? "" : ` (…${hint})`}`,
    `name     ${key.name}`,
    `state    ${stateText(key)}`,
    `account  ${key.account_id}`,
    `created  ${key.created_at}`,
    `expires  ${key.expires_at ?? "never"}`,
    // Each window on a line of its own.
    ...(budgets.length > 0 ? budgets : ["budget   none"]),
    `limits   ${limitsText(key.limits, "long")}`,
    `models   ${key.allowed_models ? key.allowed_models.join(", ") : "all"}`,
    `bodies   ${key.log_bodies ? "may be logged" : "never logged"}`,
  ];
  if (key.revoked_at) lines.push(`revoked  ${key.revoked_at}`);
  return lines;
}

function stateText(key: KeyView): string {
  if (key.state === "rotating") return `rotating: the previous value works until ${key.grace_until}`;
  if (key.state === "disabled")
    return `disabled since ${key.disabled_at} (keys enable ${key.id} restores it)`;
  return key.state;
}

/** `rpm 10, tpm 100000, max_parallel 3` (long) or `10 rpm 100000 tpm 3 par` (short, for the table); "none". */
export function limitsText(limits: LimitsView, form: "long" | "short"): string {
  const parts: string[] = [];
  for (const [name, short, value] of [
    ["rpm", "rpm", limits.rpm],
    ["tpm", "tpm", limits.tpm],
    ["max_parallel", "par", limits.max_parallel],
  ] as const) {
    if (value !== null) parts.push(form === "long" ? `${name} ${value}` : `${value} ${short}`);
  }
  return parts.length === 0 ? "none" : parts.join(form === "long" ? ", " : " ");
}
