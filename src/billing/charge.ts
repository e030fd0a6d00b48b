// What a finished request is charged: one pure function of the facts the exchange gathered (the endpoint's
// class, how far the response got, the usage the upstream reported, the usage the traffic implies, the
// bounds the request itself set, the reservation). Every outcome is in its table test.
//
// The rules, in order:
//   - Nothing is charged for a request the model server never took (unreachable, timed out, stopped by a
//     shutdown before it answered): nothing was generated.
//   - A usage report is checked before it is believed. A count that is not a non-negative safe integer,
//     completion tokens above what the request could produce (the forwarded output cap × choices; none for
//     an input-only endpoint), prompt tokens above the configured bound, or more cached prompt tokens than
//     prompt tokens, make the whole report faulty: the request is charged by estimate, and `rejected` says
//     why.
//   - Prompt tokens are priced by where they came from: those the server served from its cache at
//     cachedInput, those it wrote to its cache at cacheWrite, the rest at input. OpenAI-style reports count
//     cached tokens within prompt_tokens; Anthropic-style reports count input_tokens without the cache's
//     (prompt = input + cache read + cache creation). Estimated prompt tokens are all at the input price.
//   - The model's per-request fee is charged once with the tokens of every request the server took and
//     answered without an error status (never for a refusal, nor a request the server never took); it
//     counts in the reservation's worst case like the tokens.
//   - An error status is charged for what the upstream credibly reported, and nothing else.
//   - A complete response with a complete report is charged exactly what was reported. A report is complete
//     with prompt and completion tokens, or, for an input-only endpoint, prompt tokens alone.
//   - Otherwise (no report, a partial one, a response cut off by the client, the upstream or a shutdown) the
//     counts are estimated from the traffic, keeping what was credibly reported: the prompt as reported
//     when it was, the completion as the larger of the report and the estimate (a cut-off stream's report,
//     if any, is a running count that stopped early).
//   - No request is charged more than was reserved for it, unless the operator chose `overage: charge` and
//     the excess comes from a credible report; the excess is reported as `overage` either way. An estimate
//     is never charged beyond the reservation.

import type { UsageClass } from "../core/endpoint-classes.js";
import type { Micros } from "../core/money.js";
import type { ModelPrice } from "../core/price.js";
import type { ChargedTokens, RejectReason, TokenCounts, UsageReport } from "../core/usage.js";
import { costOf, withFee } from "./pricing.js";

export type OveragePolicy = "absorb" | "charge";

export interface ChargeFacts {
  usageClass: UsageClass;
  /**
   * Whether the model server took the request: it was forwarded, and neither refused nor left unanswered
   * by the upstream, nor stopped by a shutdown before an answer began (the client was told to retry). A
   * request whose client left while the server worked on it was processed, as far as it got.
   */
  processed: boolean;
  /** Whether the response ran to its end, rather than being cut off. */
  complete: boolean;
  /** The status the upstream answered with. */
  status: number;
  reported: UsageReport;
  /** Usage implied by the traffic (request and response sizes, streamed events). */
  estimate: TokenCounts;
  /** The most completion tokens the request could produce: the forwarded cap × choices; null if unknown. */
  maxCompletionTokens: number | null;
  /** The most prompt tokens a credible report may claim (the model's context, or billing.maxPromptTokens). */
  maxPromptTokens: number;
  price: ModelPrice;
  /** What was reserved for the request (µ₽). */
  reserved: Micros;
  overage: OveragePolicy;
}

export interface Charge {
  tokens: ChargedTokens;
  /** What the request is charged (µ₽). */
  cost: Micros;
  /** Whether any count was estimated rather than reported. */
  estimated: boolean;
  /** Why the report was not believed, when it was not. */
  rejected: RejectReason | null;
  /** What a credible report costs beyond the reservation (µ₽); charged only with overage "charge". */
  overage: Micros;
}

const ZERO: ChargedTokens = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0 };
const NOTHING: Charge = { tokens: ZERO, cost: 0, estimated: false, rejected: null, overage: 0 };

export function charge(facts: ChargeFacts): Charge {
  if (!facts.processed) return NOTHING;
  const checked = checkReport(facts);
  const report = checked.rejected === null ? checked.counts : {};
  const rejected = checked.rejected;
  // The parts of a prompt the server named, kept with the prompt they are part of.
  const cache = (prompt: number | undefined) =>
    prompt === undefined
      ? { cachedTokens: 0, cacheWriteTokens: 0 }
      : { cachedTokens: report.cached ?? 0, cacheWriteTokens: report.cacheWrite ?? 0 };

  if (facts.status >= 400) {
    const tokens = {
      promptTokens: report.prompt ?? 0,
      completionTokens: report.completion ?? 0,
      ...cache(report.prompt),
    };
    return believed(facts, tokens, rejected, false);
  }
  const completion = facts.usageClass === "input-only" ? 0 : report.completion;
  if (facts.complete && report.prompt !== undefined && completion !== undefined) {
    const tokens = { promptTokens: report.prompt, completionTokens: completion, ...cache(report.prompt) };
    return believed(facts, tokens, rejected, true);
  }
  // Estimated, keeping what was credibly reported. A prompt of no tokens is no report: Ollama sends zero
  // counts on every chunk until the last, so a stream cut short has reported only zeros.
  const reportedPrompt = report.prompt !== undefined && report.prompt > 0 ? report.prompt : undefined;
  const estimatedCompletion =
    facts.usageClass === "input-only" ? 0 : Math.min(facts.estimate.completionTokens, completionBound(facts));
  const tokens: ChargedTokens = {
    promptTokens: reportedPrompt ?? facts.estimate.promptTokens,
    completionTokens: Math.max(completion ?? 0, estimatedCompletion),
    ...cache(reportedPrompt),
  };
  // A stream cut off after its final report (a client that hung up just before [DONE]) was reported in full.
  if (reportedPrompt !== undefined && completion !== undefined && completion >= estimatedCompletion) {
    return believed(facts, tokens, rejected, true);
  }
  const cost = Math.min(withFee(costOf(tokens, facts.price), facts.price), facts.reserved);
  return { tokens, cost, estimated: true, rejected, overage: 0 };
}

/**
 * A charge on credibly reported counts (with the per-request fee when `fee`): the reservation caps it unless
 * the operator charges overage.
 */
function believed(
  facts: ChargeFacts,
  tokens: ChargedTokens,
  rejected: RejectReason | null,
  fee: boolean,
): Charge {
  const tokensCost = costOf(tokens, facts.price);
  const full = fee ? withFee(tokensCost, facts.price) : tokensCost;
  const overage = Math.max(0, full - facts.reserved);
  const cost = facts.overage === "charge" ? full : full - overage;
  return { tokens, cost, estimated: false, rejected, overage };
}

function completionBound(facts: ChargeFacts): number {
  if (facts.usageClass === "input-only") return 0;
  return facts.maxCompletionTokens ?? facts.maxPromptTokens;
}

interface CheckedReport {
  counts: { prompt?: number; completion?: number; cached?: number; cacheWrite?: number };
  rejected: RejectReason | null;
}

/** The report's counts when every one is credible, or why it is not. */
function checkReport(facts: ChargeFacts): CheckedReport {
  const { reported } = facts;
  const fields = [
    reported.prompt,
    reported.completion,
    reported.total,
    reported.cached,
    reported.cacheCreation,
    reported.cacheRead,
  ];
  if (fields.some((value) => value !== undefined && !isCount(value))) {
    return { counts: {}, rejected: "not_a_count" };
  }
  const counts: CheckedReport["counts"] = {};
  let prompt = reported.prompt as number | undefined;
  if (prompt === undefined && facts.usageClass === "input-only" && reported.completion === undefined) {
    prompt = reported.total as number | undefined;
  }
  if (prompt !== undefined) {
    const cacheRead = reported.cacheRead as number | undefined;
    const cacheWrite = (reported.cacheCreation as number | undefined) ?? 0;
    // Anthropic-style: input_tokens excludes what the cache served and what was written to it.
    prompt += (cacheRead ?? 0) + cacheWrite;
    if (prompt > facts.maxPromptTokens) return { counts: {}, rejected: "prompt_above_limit" };
    // A report in both styles is read in Anthropic's, whose cache counts are apart from the prompt's.
    const cached = cacheRead ?? (reported.cached as number | undefined) ?? 0;
    if (cached + cacheWrite > prompt) return { counts: {}, rejected: "cached_above_prompt" };
    counts.prompt = prompt;
    counts.cached = cached;
    counts.cacheWrite = cacheWrite;
  }
  const completion = reported.completion as number | undefined;
  if (completion !== undefined) {
    if (completion > completionBound(facts)) return { counts: {}, rejected: "completion_above_cap" };
    counts.completion = completion;
  }
  return { counts, rejected: null };
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
