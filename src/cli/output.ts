// How the CLI prints: one JSON document with --json, readable lines otherwise. Errors go to stderr as one
// line (a JSON error object with --json).

import { errorBody, type GatewayError } from "../errors.js";
import type { AccountView, KeyView } from "../services/views.js";

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLines(...lines: string[]): void {
  process.stdout.write(`${lines.join("\n")}\n`);
}

export function printError(error: GatewayError | Error, json: boolean): void {
  const line =
    json && "code" in error && "type" in error
      ? errorBody(error as GatewayError)
      : `error: ${error.message.replace(/\s*\n\s*/g, " ")}`;
  process.stderr.write(`${line}\n`);
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
