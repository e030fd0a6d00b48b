// The server's rules for what a person types into the dashboard's forms, checked in the page so that a
// mistake is shown at once, next to its field. They mirror src/services/validate.ts, src/services/lifetime.ts
// and src/billing/money.ts; the server stays the authority and its own message is shown if it still refuses.

import type { MessageKey } from "./i18n.js";

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: MessageKey };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const problem = <T>(key: MessageKey): Checked<T> => ({ ok: false, problem: key });

// C0/C1 control characters and the line/paragraph separators, as the server refuses them.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
const MAX_NAME_LENGTH = 200;
const MAX_MODELS = 100;
const MAX_MODEL_LENGTH = 200;
const ACCOUNT_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
// At most 999 999 999 whole rubles and six decimals: the server's MAX_MICROS.
const RUBLES = /^(\d{1,9})(?:\.(\d{1,6}))?$/;
const DURATION = /^(?:\d+[smhdw])+$/;
const PART = /(\d+)([smhdw])/g;
const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60 * 1000,
  h: 3600 * 1000,
  d: 24 * 3600 * 1000,
  w: 7 * 24 * 3600 * 1000,
};
export const MIN_LIFETIME_MS = 15 * 60 * 1000;
export const MAX_LIFETIME_MS = 100 * 365 * 24 * 3600 * 1000;

/** A key or account name: trimmed, 1 to 200 characters, no control characters. */
export function checkName(input: string): Checked<string> {
  const name = input.trim();
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return problem("v.name.length");
  if (CONTROL.test(name)) return problem("v.name.control");
  return ok(name);
}

/**
 * A ruble amount as the server reads it — plain digits, an optional dot and at most six decimals, at most
 * 999 999 999 whole rubles; no sign, exponent or comma — returned as the trimmed decimal text to send.
 */
export function checkAmount(input: string, positive = true): Checked<string> {
  const text = input.trim();
  const match = RUBLES.exec(text);
  if (!match) return problem("v.amount.format");
  if (positive && /^0*$/.test(match[1] ?? "") && /^0*$/.test(match[2] ?? ""))
    return problem("v.amount.positive");
  return ok(text);
}

/** An optional budget: empty means none (null). */
export function checkBudget(input: string): Checked<string | null> {
  return input.trim() === "" ? ok(null) : checkAmount(input, true);
}

/** A key's lifetime in milliseconds, or null for never. */
export function parseLifetime(input: string): Checked<number | null> {
  const text = input.trim().toLowerCase();
  if (text === "never") return ok(null);
  if (!DURATION.test(text)) return problem("v.ttl.format");
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(PART)) ms += Number(amount) * (UNIT_MS[unit as string] ?? 0);
  if (ms < MIN_LIFETIME_MS) return problem("v.ttl.min");
  if (ms > MAX_LIFETIME_MS) return problem("v.ttl.max");
  return ok(ms);
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
  for (const name of names) {
    if (name.length > MAX_MODEL_LENGTH || CONTROL.test(name)) return problem("v.models.name");
  }
  return ok(names);
}

export function checkAccountId(input: string): Checked<string> {
  const id = input.trim();
  return ACCOUNT_ID.test(id) ? ok(id) : problem("v.accountId");
}

export type Period = "day" | "week" | "month";

export interface KeyForm {
  name: string;
  budget: string;
  period: Period;
  ttl: string;
  models: string;
  logBodies: boolean;
}

export interface CreateKeyBody {
  name: string;
  budget?: string;
  period?: Period;
  ttl?: string;
  models?: string[];
  log_bodies: boolean;
}

export type KeyFormProblems = Partial<Record<"name" | "budget" | "period" | "ttl" | "models", MessageKey>>;

/** The create-key form as the request body to send, or the problem of each field that is wrong. */
export function checkKeyForm(
  form: KeyForm,
): { ok: true; body: CreateKeyBody } | { ok: false; problems: KeyFormProblems } {
  const problems: KeyFormProblems = {};
  const name = checkName(form.name);
  const budget = checkBudget(form.budget);
  const ttl = checkTtl(form.ttl);
  const models = checkModels(form.models);
  if (!name.ok) problems.name = name.problem;
  if (!budget.ok) problems.budget = budget.problem;
  if (!ttl.ok) problems.ttl = ttl.problem;
  if (!models.ok) problems.models = models.problem;
  if (!name.ok || !budget.ok || !ttl.ok || !models.ok) return { ok: false, problems };
  const body: CreateKeyBody = { name: name.value, log_bodies: form.logBodies };
  if (budget.value !== null) {
    body.budget = budget.value;
    body.period = form.period;
  }
  if (ttl.value !== null) body.ttl = ttl.value;
  if (models.value !== null) body.models = models.value;
  return { ok: true, body };
}

export interface KeyState {
  name: string;
  budget: number | null;
  period: Period;
  allowed_models: string[] | null;
  log_bodies: boolean;
}

export interface UpdateKeyBody {
  name?: string;
  budget?: string | null;
  period?: Period;
  models?: string[] | null;
  log_bodies?: boolean;
}

/** The fields of the edit form prefilled from a key. */
export function keyFormOf(key: KeyState): Omit<KeyForm, "ttl"> {
  return {
    name: key.name,
    budget: key.budget === null ? "" : String(key.budget),
    period: key.period,
    models: key.allowed_models === null ? "" : key.allowed_models.join(", "),
    logBodies: key.log_bodies,
  };
}

/** The edit form as a PATCH body holding only what changed, or the problems; an empty body is a problem too. */
export function checkKeyChanges(
  key: KeyState,
  form: Omit<KeyForm, "ttl">,
): { ok: true; body: UpdateKeyBody } | { ok: false; problems: KeyFormProblems; nothing?: true } {
  const problems: KeyFormProblems = {};
  const name = checkName(form.name);
  const budget = checkBudget(form.budget);
  const models = checkModels(form.models);
  if (!name.ok) problems.name = name.problem;
  if (!budget.ok) problems.budget = budget.problem;
  if (!models.ok) problems.models = models.problem;
  if (!name.ok || !budget.ok || !models.ok) return { ok: false, problems };
  const body: UpdateKeyBody = {};
  if (name.value !== key.name) body.name = name.value;
  const oldBudget = key.budget === null ? null : String(key.budget);
  if (budget.value === null ? oldBudget !== null : Number(budget.value) !== key.budget)
    body.budget = budget.value;
  if (budget.value !== null && form.period !== key.period) body.period = form.period;
  if (JSON.stringify(models.value) !== JSON.stringify(key.allowed_models)) body.models = models.value;
  if (form.logBodies !== key.log_bodies) body.log_bodies = form.logBodies;
  if (Object.keys(body).length === 0) return { ok: false, problems, nothing: true };
  return { ok: true, body };
}
