// Token usage: counts as charged, counts as an upstream reported them (unchecked), and why a report was not
// believed. The meters (proxy/) fill a report in, the charging policy (billing/charge.ts) checks it.

export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens, those the model server read from its prefix cache (priced at cachedInput); 0 if none. */
  cachedTokens?: number;
  /** Of promptTokens, those it wrote to its cache (priced at cacheWrite), as Anthropic-style reports say. */
  cacheWriteTokens?: number;
}

/** Counts as charged: every part of the prompt named, so that each is priced as configured. */
export interface ChargedTokens extends TokenCounts {
  cachedTokens: number;
  cacheWriteTokens: number;
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
  /**
   * OpenAI-style prompt tokens served from cache (usage.prompt_tokens_details.cached_tokens, or
   * input_tokens_details in the Responses API): part of the prompt tokens reported.
   */
  cached?: unknown;
  /**
   * Anthropic-style cache counts (cache_creation_input_tokens, cache_read_input_tokens): reported apart from
   * input_tokens, which excludes them; they are prompt tokens all the same.
   */
  cacheCreation?: unknown;
  cacheRead?: unknown;
}

/** Why a usage report was not believed (the request is then charged by estimate). */
export type RejectReason =
  | "not_a_count"
  | "completion_above_cap"
  | "prompt_above_limit"
  | "cached_above_prompt";
export const REJECT_REASONS: readonly RejectReason[] = [
  "not_a_count",
  "completion_above_cap",
  "prompt_above_limit",
  "cached_above_prompt",
];
