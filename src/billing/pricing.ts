// Prices per model and the cost of a request. Prices are rubles per 1 million tokens, held as integer
// micro-rubles per 1 million tokens; a cost is computed in BigInt and rounded up to the whole micro-ruble,
// so it is exact and never in the client's favour by more than one micro-ruble.

import type { Config } from "../config/schema.js";
import { MAX_MICROS, type Micros } from "../core/money.js";
import type { ModelPrice } from "../core/price.js";
import type { TokenCounts } from "../core/usage.js";

const MILLION = 1_000_000n;

export class Pricing {
  private readonly fallback: ModelPrice;
  private readonly byModel: Map<string, ModelPrice>;

  constructor(pricing: Config["pricing"]) {
    const fallback = pricing.default;
    this.fallback = { ...fallback, contextTokens: fallback.contextTokens ?? null };
    // A model's entry inherits from the default what it does not set itself.
    this.byModel = new Map(
      Object.entries(pricing.models).map(([model, price]) => [
        model,
        {
          input: price.input,
          output: price.output,
          maxOutputTokens: price.maxOutputTokens ?? fallback.maxOutputTokens,
          contextTokens: price.contextTokens ?? fallback.contextTokens ?? null,
          maxImageTokens: price.maxImageTokens ?? fallback.maxImageTokens,
          maxAudioTokens: price.maxAudioTokens ?? fallback.maxAudioTokens,
          maxVideoTokens: price.maxVideoTokens ?? fallback.maxVideoTokens,
        },
      ]),
    );
  }

  priceFor(model: string | null): ModelPrice {
    return (model !== null && this.byModel.get(model)) || this.fallback;
  }
}

/** prompt × input + completion × output, per million tokens, rounded up to the micro-ruble. */
export function costOf(tokens: TokenCounts, price: Pick<ModelPrice, "input" | "output">): Micros {
  const total =
    BigInt(tokens.promptTokens) * BigInt(price.input) +
    BigInt(tokens.completionTokens) * BigInt(price.output);
  const micros = (total + MILLION - 1n) / MILLION;
  // Absurd token counts can only come from a broken upstream. Clamp to the largest amount the gateway holds:
  // a charge beyond it could push a balance below what doubles (and Lua) keep exact, and formatting refuses it.
  return micros > BigInt(MAX_MICROS) ? MAX_MICROS : Number(micros);
}
