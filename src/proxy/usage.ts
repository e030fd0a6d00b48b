// Reading the token usage an upstream reports, in the shapes model servers use:
//   OpenAI chat/completions:  {"usage": {"prompt_tokens", "completion_tokens"}}
//   OpenAI Responses:         {"usage": {"input_tokens", "output_tokens"}}, or nested in "response" in SSE
//   Anthropic messages:       {"usage": {...}}, or in "message" (message_start) and "usage" (message_delta)
// In a stream, each usage object updates the counts it carries, so the last report of each count wins.

import type { TokenCounts } from "../billing/pricing.js";

export type ReportedUsage = Partial<TokenCounts>;

/** Merges the usage carried by one JSON value into `into`; returns whether it carried any. */
export function collectUsage(value: unknown, into: ReportedUsage): boolean {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  let found = readUsage(record.usage, into);
  const response = record.response as Record<string, unknown> | undefined;
  if (typeof response === "object" && response !== null) found = readUsage(response.usage, into) || found;
  const message = record.message as Record<string, unknown> | undefined;
  if (typeof message === "object" && message !== null) found = readUsage(message.usage, into) || found;
  return found;
}

function readUsage(usage: unknown, into: ReportedUsage): boolean {
  if (typeof usage !== "object" || usage === null) return false;
  const u = usage as Record<string, unknown>;
  const prompt = tokens(u.prompt_tokens) ?? tokens(u.input_tokens);
  const completion = tokens(u.completion_tokens) ?? tokens(u.output_tokens);
  if (prompt !== null) into.promptTokens = prompt;
  if (completion !== null) into.completionTokens = completion;
  return prompt !== null || completion !== null;
}

function tokens(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

export function isComplete(usage: ReportedUsage): usage is TokenCounts {
  return usage.promptTokens !== undefined && usage.completionTokens !== undefined;
}
