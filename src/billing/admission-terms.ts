// What admitting a request commits to, worked out before anything is reserved: its price, the output cap it is
// forwarded with, its worst case (what is reserved), the prompt tokens it implies should the upstream report
// none, and the most tokens a credible report may claim. One pure function, so that the request path asks
// billing once before forwarding (RequestBilling.admit) and the figures are tested as a table.

import type { Config } from "../config/schema.js";
import type { UsageClass } from "../core/endpoint-classes.js";
import { GatewayError } from "../core/errors.js";
import type { ModelPrice } from "../core/price.js";
import { estimatedPromptTokens, NOTHING, type PromptSize, type WorstCase, worstCase } from "./estimate.js";

/** What the request asks for, as its body says (proxy/request/request-facts.ts reads it). */
export interface AdmissionAsk {
  /** The model it names; null for the default one. */
  model: string | null;
  /** How its usage is metered; null for a request that is never charged. */
  usageClass: UsageClass | null;
  prompt: PromptSize;
  /** The largest output cap the body sets, or null when it sets none. */
  maxOutputTokens: number | null;
  /** The fields that set it, for the refusal of a cap above the context length ("max_tokens"). */
  capFields: string;
  /** Completions asked for. */
  choices: number;
}

export interface AdmissionTerms {
  /** The output cap forwarded: the body's own, else the model's. */
  cap: number;
  worst: WorstCase;
  /** Prompt tokens implied by the request, should the upstream report none. */
  promptEstimate: number;
  /** The most completion tokens a credible report may claim (cap × choices; null when unknown). */
  maxCompletionTokens: number | null;
  /** The most prompt tokens a credible report may claim. */
  maxPromptTokens: number;
}

/** The terms of `ask` at `price`; refuses an output cap above the model's context length. */
export function admissionTerms(
  ask: AdmissionAsk,
  price: ModelPrice,
  estimate: Config["estimate"],
  maxPromptTokens: number,
): AdmissionTerms {
  checkCapsFit(ask, price);
  const { usageClass } = ask;
  const cap = ask.maxOutputTokens ?? price.maxOutputTokens;
  return {
    cap,
    worst: usageClass ? worstCase(usageClass, ask.prompt, cap, ask.choices, price, estimate) : NOTHING,
    promptEstimate: usageClass ? estimatedPromptTokens(ask.prompt, price, estimate) : 0,
    maxCompletionTokens:
      usageClass === "generation" ? cap * ask.choices : usageClass === "input-only" ? 0 : null,
    maxPromptTokens: price.contextTokens ?? maxPromptTokens,
  };
}

/** Refuses an output cap above the model's context length, when the operator has set one. */
function checkCapsFit(ask: AdmissionAsk, price: ModelPrice): void {
  const limit = price.contextTokens;
  const asked = ask.maxOutputTokens;
  if (limit === null || asked === null || asked <= limit) return;
  const model = ask.model === null ? "the default model" : `model "${ask.model}"`;
  throw new GatewayError(
    "invalid_request",
    `${ask.capFields} must be a whole number from 1 to ${limit}, the context length of ${model}; got ${asked}.`,
  );
}
