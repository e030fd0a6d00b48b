// What a person types into the dashboard's forms, checked in the page so that a mistake is shown at once,
// next to its field. The rules themselves are the server's (src/core/validate.ts, src/services/lifetime.ts and
// src/core/money.ts), imported here: the page only maps their verdicts to messages in the page's language.
// The server stays the authority and its own message is shown if it still refuses.

import { microsFromJson, readRubles } from "../../../core/money.js";
import { PERIODS, type Period } from "../../../core/periods.js";
import {
  isAccountId,
  isModelName,
  LIMIT_MAX,
  type LimitName,
  MAX_MODELS,
  nameProblem,
} from "../../../core/validate.js";
import { readLifetime } from "../../../services/lifetime.js";
import type { CreateKeyBody, UpdateKeyBody } from "../api/types.js";
import type { MessageKey } from "../i18n/lookup.js";

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: MessageKey };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const problem = <T>(key: MessageKey): Checked<T> => ({ ok: false, problem: key });

/** A key or account name: trimmed, 1 to 200 characters, no control characters. */
export function checkName(input: string): Checked<string> {
  const name = input.trim();
  const wrong = nameProblem(name);
  return wrong === null ? ok(name) : problem(`v.name.${wrong}`);
}

/**
 * A ruble amount as the server reads it — plain digits, an optional dot and at most six decimals, at most
 * 999 999 999 whole rubles; no sign, exponent or comma — returned as the trimmed decimal text to send.
 */
export function checkAmount(input: string, positive = true): Checked<string> {
  const micros = readRubles(input);
  if (micros === undefined) return problem("v.amount.format");
  if (positive && micros === 0) return problem("v.amount.positive");
  return ok(input.trim());
}

/**
 * A whole number from `min` to `max` as the server reads it (core/sharing.ts's rules): digits with an optional
 * minus sign; empty means none (null) where `optional`. `wrong` names the field's rule for the person.
 */
export function checkWhole(
  input: string,
  range: { min: number; max: number; optional: boolean },
  wrong: MessageKey,
): Checked<number | null> {
  const text = input.trim();
  if (text === "") return range.optional ? ok(null) : problem(wrong);
  if (!/^-?\d+$/.test(text)) return problem(wrong);
  const value = Number(text);
  return value < range.min || value > range.max ? problem(wrong) : ok(value);
}

/** An optional budget: empty means none (null). */
export function checkBudget(input: string): Checked<string | null> {
  return input.trim() === "" ? ok(null) : checkAmount(input, true);
}

/** A key's lifetime in milliseconds, or null for never. */
export function parseLifetime(input: string): Checked<number | null> {
  const lifetime = readLifetime(input);
  return lifetime.ok ? ok(lifetime.ms) : problem(`v.ttl.${lifetime.problem}`);
}

/** The ttl field: empty means omitted (the key never expires); otherwise the trimmed text, checked. */
export function checkTtl(input: string): Checked<string | null> {
  const text = input.trim();
  if (text === "") return ok(null);
  const lifetime = parseLifetime(text);
  return lifetime.ok ? ok(text) : problem(lifetime.problem);
}

/**
 * The models field: names separated by commas or line breaks, trimmed and deduplicated. Empty means all
 * models (null); otherwise 1 to 100 names of 1 to 200 printable characters.
 */
export function checkModels(input: string): Checked<string[] | null> {
  const names = [
    ...new Set(
      input
        .split(/[,\n\r]+/)
        .map((name) => name.trim())
        .filter((name) => name !== ""),
    ),
  ];
  if (names.length === 0) return ok(null);
  if (names.length > MAX_MODELS) return problem("v.models.count");
  return names.every(isModelName) ? ok(names) : problem("v.models.name");
}

/**
 * A limit field (rpm, tpm, max_parallel): empty means none (null); otherwise a whole number from 1 to the
 * server's maximum for it.
 */
export function checkLimit(input: string, name: LimitName): Checked<number | null> {
  const text = input.trim();
  if (text === "") return ok(null);
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  return Number.isInteger(value) && value >= 1 && value <= LIMIT_MAX[name]
    ? ok(value)
    : problem(`v.limit.${name}`);
}

export function checkAccountId(input: string): Checked<string> {
  const id = input.trim();
  return isAccountId(id) ? ok(id) : problem("v.accountId");
}

/** A window's field in the key forms: its amount as typed, empty for no window of that period. */
export type BudgetField = `budget.${Period}`;

export interface KeyForm {
  name: string;
  /** Rubles per day, week and month as typed; empty for no window of that period. */
  budgets: Record<Period, string>;
  ttl: string;
  models: string;
  logBodies: boolean;
  /** Limits as typed; empty for none. */
  rpm: string;
  tpm: string;
  maxParallel: string;
}

export type KeyFormProblems = Partial<
  Record<"name" | BudgetField | "ttl" | "models" | "rpm" | "tpm" | "maxParallel", MessageKey>
>;

/** A key's budget window as the forms send it. */
interface WindowInput {
  period: Period;
  amount: string;
}

/**
 * The window fields checked, each problem added to `problems`; null when one is wrong. The windows come in
 * the order day, week, month.
 */
function checkWindows(budgets: Record<Period, string>, problems: KeyFormProblems): WindowInput[] | null {
  const windows: WindowInput[] = [];
  let ok = true;
  for (const period of PERIODS) {
    const checked = checkBudget(budgets[period]);
    if (!checked.ok) {
      problems[`budget.${period}`] = checked.problem;
      ok = false;
    } else if (checked.value !== null) windows.push({ period, amount: checked.value });
  }
  return ok ? windows : null;
}

const LIMIT_FIELDS = [
  ["rpm", "rpm"],
  ["tpm", "tpm"],
  ["maxParallel", "max_parallel"],
] as const;

/** The limit fields checked, their problems added to `problems`; null when one is wrong. */
function checkLimits(
  form: Pick<KeyForm, "rpm" | "tpm" | "maxParallel">,
  problems: KeyFormProblems,
): Record<LimitName, number | null> | null {
  const limits: Record<LimitName, number | null> = { rpm: null, tpm: null, max_parallel: null };
  let ok = true;
  for (const [field, name] of LIMIT_FIELDS) {
    const checked = checkLimit(form[field], name);
    if (checked.ok) limits[name] = checked.value;
    else {
      problems[field] = checked.problem;
      ok = false;
    }
  }
  return ok ? limits : null;
}

/** The create-key form as the request body to send, or the problem of each field that is wrong. */
export function checkKeyForm(
  form: KeyForm,
): { ok: true; body: CreateKeyBody } | { ok: false; problems: KeyFormProblems } {
  const problems: KeyFormProblems = {};
  const name = checkName(form.name);
  const windows = checkWindows(form.budgets, problems);
  const ttl = checkTtl(form.ttl);
  const models = checkModels(form.models);
  if (!name.ok) problems.name = name.problem;
  if (!ttl.ok) problems.ttl = ttl.problem;
  if (!models.ok) problems.models = models.problem;
  const limits = checkLimits(form, problems);
  if (!name.ok || !windows || !ttl.ok || !models.ok || !limits) return { ok: false, problems };
  const body: CreateKeyBody = { name: name.value, log_bodies: form.logBodies };
  for (const [name, value] of Object.entries(limits)) if (value !== null) body[name as LimitName] = value;
  if (windows.length > 0) body.budgets = windows;
  if (ttl.value !== null) body.ttl = ttl.value;
  if (models.value !== null) body.models = models.value;
  return { ok: true, body };
}

export interface KeyState {
  name: string;
  /** Its windows, in its order (the first is the one /v1/key reports as `budget`). */
  budgets: readonly { period: Period; amount: number }[];
  allowed_models: string[] | null;
  log_bodies: boolean;
  limits: Record<LimitName, number | null>;
}

/** The fields of the edit form prefilled from a key. */
export function keyFormOf(key: KeyState): Omit<KeyForm, "ttl"> {
  return {
    name: key.name,
    budgets: Object.fromEntries(
      PERIODS.map((period) => {
        const window = key.budgets.find((w) => w.period === period);
        return [period, window === undefined ? "" : String(window.amount)];
      }),
    ) as Record<Period, string>,
    models: key.allowed_models === null ? "" : key.allowed_models.join(", "),
    logBodies: key.log_bodies,
    rpm: key.limits.rpm === null ? "" : String(key.limits.rpm),
    tpm: key.limits.tpm === null ? "" : String(key.limits.tpm),
    maxParallel: key.limits.max_parallel === null ? "" : String(key.limits.max_parallel),
  };
}

/** The edit form as a PATCH body holding only what changed, or the problems; an empty body is a problem too. */
export function checkKeyChanges(
  key: KeyState,
  form: Omit<KeyForm, "ttl">,
): { ok: true; body: UpdateKeyBody } | { ok: false; problems: KeyFormProblems; nothing?: true } {
  const problems: KeyFormProblems = {};
  const name = checkName(form.name);
  const windows = checkWindows(form.budgets, problems);
  const models = checkModels(form.models);
  if (!name.ok) problems.name = name.problem;
  if (!models.ok) problems.models = models.problem;
  const limits = checkLimits(form, problems);
  if (!name.ok || !windows || !models.ok || !limits) return { ok: false, problems };
  const body: UpdateKeyBody = {};
  for (const [name, value] of Object.entries(limits) as [LimitName, number | null][]) {
    if (value !== key.limits[name]) body[name] = value;
  }
  if (name.value !== key.name) body.name = name.value;
  // Compared in µ₽, as the server would store them: "12.50" is the key's 12.5.
  const changed =
    windows.length !== key.budgets.length ||
    windows.some((w) => {
      const old = key.budgets.find((window) => window.period === w.period);
      return old === undefined || microsFromJson(old.amount) !== readRubles(w.amount);
    });
  if (changed) body.budgets = windowsInKeyOrder(key, windows);
  if (JSON.stringify(models.value) !== JSON.stringify(key.allowed_models)) body.models = models.value;
  if (form.logBodies !== key.log_bodies) body.log_bodies = form.logBodies;
  if (Object.keys(body).length === 0) return { ok: false, problems, nothing: true };
  return { ok: true, body };
}

/**
 * The windows to send for a key: those it keeps in its own order, so that its first window (the one /v1/key
 * reports as `budget`) stays first, then the new ones.
 */
function windowsInKeyOrder(key: KeyState, windows: WindowInput[]): WindowInput[] {
  const rank = (w: WindowInput) => {
    const at = key.budgets.findIndex((old) => old.period === w.period);
    return at === -1 ? key.budgets.length + PERIODS.indexOf(w.period) : at;
  };
  return [...windows].sort((a, b) => rank(a) - rank(b));
}
