// Estimates made without the upstream's word: the worst case a request may cost (reserved before it is
// forwarded) and, when an upstream reports no usage, the usage implied by the traffic.

import type { Config } from "../config/schema.js";
import type { UsageClass } from "../core/endpoint-classes.js";
import type { Micros } from "../core/money.js";
import type { ModelPrice } from "../core/price.js";
import type { TokenCounts } from "../core/usage.js";
import { costOf, withFee, worstPromptPrice } from "./pricing.js";

/** The prompt as the worst case sizes it: text by its bytes, each media part at its model's maximum. */
export interface PromptSize {
  /** Bytes of the body that are not media data. */
  textBytes: number;
  images: number;
  audio: number;
  video: number;
}

export interface WorstCase extends TokenCounts {
  amount: Micros;
  /** Completions the request asks for; completionTokens covers all of them. */
  choices: number;
}

export const NOTHING: WorstCase = { promptTokens: 0, completionTokens: 0, choices: 1, amount: 0 };

/**
 * The most a request can cost. The prompt: every byte of text a token (estimate.reserveBytesPerToken: no
 * token of a byte-level tokenizer is shorter than a byte), every media part at its model's maximum, each at
 * the highest of the prompt prices (input, cachedInput, cacheWrite: which part the server will serve from
 * its cache is not known before it answers). The output: none for an input-only endpoint; otherwise `cap`
 * (the cap forwarded) for each of `choices`. Plus the model's per-request fee.
 */
export function worstCase(
  usageClass: UsageClass,
  prompt: PromptSize,
  cap: number,
  choices: number,
  price: ModelPrice,
  estimate: Config["estimate"],
): WorstCase {
  const promptTokens = promptTokensOf(prompt, estimate.reserveBytesPerToken, price);
  const completionTokens = usageClass === "input-only" ? 0 : cap * choices;
  return {
    promptTokens,
    completionTokens,
    choices,
    amount: withFee(
      costOf({ promptTokens, completionTokens }, { input: worstPromptPrice(price), output: price.output }),
      price,
    ),
  };
}

/**
 * The prompt tokens implied by the request when the upstream reported none (or was cut off before it
 * could): its text at estimate.usageBytesPerToken, media parts at their maximum.
 */
export function estimatedPromptTokens(
  prompt: PromptSize,
  price: ModelPrice,
  estimate: Config["estimate"],
): number {
  return promptTokensOf(prompt, estimate.usageBytesPerToken, price);
}

/**
 * Completion tokens implied by the response: the number of streamed events (one token each, as vLLM, TGI,
 * llama.cpp and Ollama stream) or, for a response that is not a stream, its bytes.
 */
export function estimatedCompletionTokens(
  responseBytes: number,
  streamedEvents: number | null,
  estimate: Config["estimate"],
): number {
  return streamedEvents ?? Math.ceil(responseBytes / estimate.usageBytesPerToken);
}

function promptTokensOf(prompt: PromptSize, bytesPerToken: number, price: ModelPrice): number {
  return (
    Math.ceil(prompt.textBytes / bytesPerToken) +
    prompt.images * price.maxImageTokens +
    prompt.audio * price.maxAudioTokens +
    prompt.video * price.maxVideoTokens
  );
}
