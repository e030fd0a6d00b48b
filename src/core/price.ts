// A model's price and the bounds that size its worst case, as the pricing (billing/pricing.ts) resolves it
// from the configuration for one request.

import type { Micros } from "./money.js";

export interface ModelPrice {
  /** µ₽ per 1 million prompt tokens. */
  input: Micros;
  /** µ₽ per 1 million completion tokens. */
  output: Micros;
  /** µ₽ per 1 million prompt tokens the model server served from its cache (the input price unless set). */
  cachedInput: Micros;
  /** µ₽ per 1 million prompt tokens the model server reports writing to its cache (the input price unless set). */
  cacheWrite: Micros;
  /** µ₽ charged once for every request the model server took (0 unless set). */
  perRequest: Micros;
  /** Completion tokens assumed for the worst case when a request does not cap them. */
  maxOutputTokens: number;
  /** The model's context length, when the operator set it: the largest cap, the largest credible prompt. */
  contextTokens: number | null;
  /** Prompt tokens an image, audio or video part may take at most. */
  maxImageTokens: number;
  maxAudioTokens: number;
  maxVideoTokens: number;
}
