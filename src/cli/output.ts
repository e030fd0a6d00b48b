// How the CLI prints: one JSON document with --json, readable lines otherwise. Errors go to stderr as one
// line (a JSON error object with --json).

import { ConfigError } from "../config/config-error.js";
import { errorBody, GatewayError } from "../errors.js";
import type { AccountView, KeyView } from "../services/views.js";
import { asGatewayError } from "../store/redis.js";

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
  return [
    `account  ${account.id}`,
    `name     ${account.name}`,
    `balance  ${account.balance} ${account.currency}`,
    `created  ${account.created_at}`,
  ];
}

export function describeKey(key: KeyView & { revoked_at?: string | null }): string[] {
  const budget = key.budget
    ? `${key.budget.spent} of ${key.budget.initial} ${key.currency} spent this ${key.budget.period}, ` +
      `${key.budget.remaining} left, resets ${key.budget.reset_at}`
    : "none";
  const lines = [
    `key      ${key.id}`,
    `name     ${key.name}`,
    `account  ${key.account_id}`,
    `created  ${key.created_at}`,
    `expires  ${key.expires_at ?? "never"}`,
    `budget   ${budget}`,
    `models   ${key.allowed_models ? key.allowed_models.join(", ") : "all"}`,
    `bodies   ${key.log_bodies ? "may be logged" : "never logged"}`,
  ];
  if (key.revoked_at) lines.push(`revoked  ${key.revoked_at}`);
  return lines;
}
