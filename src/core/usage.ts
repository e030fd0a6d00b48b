// Token usage: counts as charged, counts as an upstream reported them (unchecked), and why a report was not
// believed. The meters (proxy/) fill a report in, the charging policy (billing/charge.ts) checks it.

export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
}

/**
 * Token counts as the upstream reported them, each as found (any JSON value) and absent when not reported.
 * Later reports in a stream replace earlier ones, field by field.
 */
export interface UsageReport {
  prompt?: unknown;
  completion?: unknown;
  /** A total alone, as rerank and score answers report it: an input-only request's prompt tokens. */
  total?: unknown;
  /** Anthropic reports cached prompt tokens apart from input_tokens; they are prompt tokens all the same. */
  cacheCreation?: unknown;
  cacheRead?: unknown;
}

/** Why a usage report was not believed (the request is then charged by estimate). */
export type RejectReason = "not_a_count" | "completion_above_cap" | "prompt_above_limit";
export const REJECT_REASONS: readonly RejectReason[] = [
  "not_a_count",
  "completion_above_cap",
  "prompt_above_limit",
];
