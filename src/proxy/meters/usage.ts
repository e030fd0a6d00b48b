// Reading the token usage an upstream reports, in the shapes model servers use, without judging it (the
// charging policy in billing/charge.ts checks it before believing it):
//   OpenAI chat/completions/embeddings: {"usage": {"prompt_tokens", "completion_tokens", "total_tokens"}},
//                                       cached prompt tokens (within prompt_tokens) in
//                                       "prompt_tokens_details": {"cached_tokens"} — vLLM with
//                                       --enable-prompt-tokens-details, SGLang with --enable-cache-report
//                                       (only when some were cached), llama.cpp always
//   OpenAI Responses:                   {"usage": {"input_tokens", "output_tokens"}}, in "response" in SSE;
//                                       cached in "input_tokens_details": {"cached_tokens"}
//   Anthropic messages:                 {"usage": {...}}, or in "message" (message_start) and "usage"
//                                       (message_delta); cached prompt tokens counted apart from
//                                       input_tokens (cache_read_input_tokens, cache_creation_input_tokens)
//   rerank and score:                   {"usage": {"total_tokens"}} alone
//   Ollama's native API:                {"prompt_eval_count", "eval_count"} on the final object
//   TGI's native API:                   {"details": {"input_length", "generated_tokens"}} (with details on),
//                                       and x-prompt-tokens / x-generated-tokens headers on /generate
// In a stream, each report replaces the counts it carries, so the last report of each count wins.

import type { IncomingHttpHeaders } from "node:http";
import type { UsageReport } from "../../core/usage.js";

/** Merges the usage carried by one JSON value into `into`; returns whether it carried any. */
export function collectUsage(value: unknown, into: UsageReport): boolean {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  let found = readUsage(record.usage, into);
  const response = record.response as Record<string, unknown> | undefined;
  if (typeof response === "object" && response !== null) found = readUsage(response.usage, into) || found;
  const message = record.message as Record<string, unknown> | undefined;
  if (typeof message === "object" && message !== null) found = readUsage(message.usage, into) || found;
  const details = record.details as Record<string, unknown> | undefined;
  if (typeof details === "object" && details !== null) {
    if (details.input_length !== undefined && details.input_length !== null) {
      into.prompt = details.input_length;
      found = true;
    }
    if (details.generated_tokens !== undefined && details.generated_tokens !== null) {
      into.completion = details.generated_tokens;
      found = true;
    }
  }
  if (record.prompt_eval_count !== undefined && record.prompt_eval_count !== null) {
    into.prompt = record.prompt_eval_count;
    found = true;
  }
  if (record.eval_count !== undefined && record.eval_count !== null) {
    into.completion = record.eval_count;
    found = true;
  }
  return found;
}

function readUsage(usage: unknown, into: UsageReport): boolean {
  if (typeof usage !== "object" || usage === null) return false;
  const u = usage as Record<string, unknown>;
  let found = false;
  // null is how some servers say "not counted" (completion_tokens of an embedding): not a report.
  const take = (field: keyof UsageReport, ...names: string[]) => {
    for (const name of names) {
      if (u[name] !== undefined && u[name] !== null) {
        into[field] = u[name];
        found = true;
        return;
      }
    }
  };
  take("prompt", "prompt_tokens", "input_tokens");
  take("completion", "completion_tokens", "output_tokens");
  take("total", "total_tokens");
  take("cacheCreation", "cache_creation_input_tokens");
  take("cacheRead", "cache_read_input_tokens");
  // The details' other counts (audio, reasoning) are parts of prompt and completion tokens, charged as such.
  const details = (u.prompt_tokens_details ?? u.input_tokens_details) as
    | Record<string, unknown>
    | null
    | undefined;
  if (
    typeof details === "object" &&
    details !== null &&
    details.cached_tokens !== undefined &&
    details.cached_tokens !== null
  ) {
    into.cached = details.cached_tokens;
    found = true;
  }
  return found;
}

/** What every usage report above holds: a *_tokens or *_count field. The stream meters search bytes for them. */
export const USAGE_MARKERS: readonly string[] = ['_tokens"', '_count"'];
const MARKER_BYTES = USAGE_MARKERS.map((marker) => Buffer.from(marker));

/** Whether a text may hold a usage report worth parsing. */
export function mayCarryUsage(text: Buffer | string): boolean {
  if (typeof text === "string") return USAGE_MARKERS.some((marker) => text.includes(marker));
  // A Buffer searched for a string would encode the string on every call.
  return MARKER_BYTES.some((marker) => text.includes(marker));
}

/** The counts TGI's /generate reports in its response headers only; a value that is not digits stays as it is, for the policy to refuse. */
export function usageFromHeaders(headers: IncomingHttpHeaders): UsageReport {
  const usage: UsageReport = {};
  const prompt = headers["x-prompt-tokens"];
  const completion = headers["x-generated-tokens"];
  if (typeof prompt === "string") usage.prompt = /^\d{1,15}$/.test(prompt) ? Number(prompt) : prompt;
  if (typeof completion === "string")
    usage.completion = /^\d{1,15}$/.test(completion) ? Number(completion) : completion;
  return usage;
}
