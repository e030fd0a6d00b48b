// Estimates made without the upstream's word: the worst case a request may cost (reserved before it is
// forwarded) and, when an upstream reports no usage, the usage implied by the traffic.

import type { Config } from "../config/schema.js";
import type { Micros } from "./money.js";
import { costOf, type ModelPrice, type TokenCounts } from "./pricing.js";

export interface WorstCase extends TokenCounts {
  amount: Micros;
  /** Completions the request asks for; completionTokens covers all of them. */
  choices: number;
}

/**
 * The most a request can cost: its whole body counted as prompt tokens, and the largest output it may
 * produce (`maxOutputTokens` from the request, else the model's default) for each of its `choices`.
 */
export function worstCase(
  bodyBytes: number,
  maxOutputTokens: number | null,
  choices: number,
  price: ModelPrice,
  estimate: Config["estimate"],
): WorstCase {
  const promptTokens = Math.ceil(bodyBytes / estimate.reserveBytesPerToken);
  const completionTokens = (maxOutputTokens ?? price.maxOutputTokens) * choices;
  return {
    promptTokens,
    completionTokens,
    choices,
    amount: costOf({ promptTokens, completionTokens }, price),
  };
}

/**
 * Usage implied by the traffic when the upstream reported none (or was cut off before it could): the
 * request body for the prompt, and for the completion either the number of streamed events (one token
 * each, as vLLM, TGI and llama.cpp stream) or the response bytes. Fields the upstream did report are kept.
 */
export function estimatedUsage(
  reported: Partial<TokenCounts>,
  requestBytes: number,
  responseBytes: number,
  streamedEvents: number | null,
  estimate: Config["estimate"],
): TokenCounts {
  return {
    promptTokens: reported.promptTokens ?? Math.ceil(requestBytes / estimate.usageBytesPerToken),
    completionTokens:
      reported.completionTokens ?? streamedEvents ?? Math.ceil(responseBytes / estimate.usageBytesPerToken),
  };
}
