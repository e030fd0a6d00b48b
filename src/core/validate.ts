// Rules for what operators and account owners may write, shared by the CLI and the admin API so that both
// refuse the same input with the same message. Each check names the field it refuses.

import { GatewayError } from "./errors.js";

const ACCOUNT_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const KEY_ID = /^key_[0-9a-z]{20}$/;
// C0/C1 control characters and the line/paragraph separators: they would corrupt terminals and log lines.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
export const MAX_NAME_LENGTH = 200;
export const MAX_MODELS = 100;
export const MAX_MODEL_LENGTH = 200;

// The predicates below are also what the dashboard's forms check, so that the page and the server agree.

export function isAccountId(value: string): boolean {
  return ACCOUNT_ID.test(value);
}

export type NameProblem = "length" | "control";

/** What is wrong with an (already trimmed) name, or null. */
export function nameProblem(name: string): NameProblem | null {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return "length";
  if (CONTROL.test(name)) return "control";
  return null;
}

/** A model name: 1 to MAX_MODEL_LENGTH printable characters. */
export function isModelName(model: unknown): model is string {
  return (
    typeof model === "string" && model.length > 0 && model.length <= MAX_MODEL_LENGTH && !CONTROL.test(model)
  );
}

export function validateAccountId(value: unknown): string {
  if (typeof value !== "string" || !isAccountId(value)) {
    throw invalid(
      `account id must be 1 to 64 characters of lowercase letters, digits, '-' and '_', starting with a letter or digit; got ${describe(value)}`,
    );
  }
  return value;
}

export function validateKeyId(value: unknown): string {
  if (typeof value !== "string" || !KEY_ID.test(value)) {
    throw invalid(
      `key id must look like key_ followed by 20 lowercase letters or digits; got ${describe(value)}`,
    );
  }
  return value;
}

export function validateName(value: unknown, what = "name"): string {
  if (typeof value !== "string") throw invalid(`${what} must be a string; got ${describe(value)}`);
  const name = value.trim();
  const problem = nameProblem(name);
  if (problem === "length") throw invalid(`${what} must be 1 to ${MAX_NAME_LENGTH} characters long`);
  if (problem === "control") throw invalid(`${what} must not contain control characters`);
  return name;
}

/** A list of model names, deduplicated; an empty list is refused (a key that may use no model is useless). */
export function validateModels(value: unknown): string[] {
  if (!Array.isArray(value)) throw invalid(`models must be a list of model names; got ${describe(value)}`);
  const models = [...new Set(value.map((model) => (typeof model === "string" ? model.trim() : model)))];
  if (models.length === 0) throw invalid("models must name at least one model (omit it to allow all models)");
  if (models.length > MAX_MODELS) throw invalid(`models may list at most ${MAX_MODELS} models`);
  for (const model of models) {
    if (!isModelName(model)) {
      throw invalid(
        `models must hold names of 1 to ${MAX_MODEL_LENGTH} printable characters; got ${describe(model)}`,
      );
    }
  }
  return models as string[];
}

/**
 * The largest value each limit takes: far above any real key's (a million requests a minute is more than one
 * gateway serves), low enough that the limit scripts' integer arithmetic stays exact below 2^53.
 */
export const LIMIT_MAX = { rpm: 1_000_000, tpm: 1_000_000_000, max_parallel: 100_000 } as const;
export type LimitName = keyof typeof LIMIT_MAX;
const LIMIT_UNITS: Record<LimitName, string> = {
  rpm: "requests per minute",
  tpm: "tokens per minute",
  max_parallel: "requests in flight at once",
};

/** A limit: a whole number from 1 to its maximum, given as a number or as decimal digits (the CLI's text). */
export function validateLimit(value: unknown, name: LimitName): number {
  const number = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < 1 || number > LIMIT_MAX[name]) {
    throw invalid(
      `${name} must be a whole number of ${LIMIT_UNITS[name]} from 1 to ${LIMIT_MAX[name]}; got ${describe(value)}`,
    );
  }
  return number;
}

function invalid(message: string): GatewayError {
  return new GatewayError("invalid_request", message);
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
