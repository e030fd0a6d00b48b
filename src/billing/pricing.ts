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
    this.fallback = {
      ...fallback,
      cachedInput: fallback.cachedInput ?? fallback.input,
      cacheWrite: fallback.cacheWrite ?? fallback.input,
      perRequest: fallback.perRequest ?? 0,
      contextTokens: fallback.contextTokens ?? null,
    };
    // A model's entry inherits from the default what it does not set itself, but for its cache prices: they
    // follow the model's own input price, so that a model priced apart is never charged the default's.
    this.byModel = new Map(
      Object.entries(pricing.models).map(([model, price]) => [
        model,
        {
          input: price.input,
          output: price.output,
          cachedInput: price.cachedInput ?? price.input,
          cacheWrite: price.cacheWrite ?? price.input,
          perRequest: price.perRequest ?? fallback.perRequest ?? 0,
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

/** The prices costOf reads: the cache prices default to the input price when a caller leaves them out. */
export type TokenPrices = Pick<ModelPrice, "input" | "output"> &
  Partial<Pick<ModelPrice, "cachedInput" | "cacheWrite">>;

/**
 * The prompt's uncached tokens × input + cached × cachedInput + written to the cache × cacheWrite +
 * completion × output, per million tokens, summed exactly and rounded up once to the micro-ruble. The
 * per-request fee is not in it (see withFee): a cost of tokens is what the estimates compare.
 */
export function costOf(tokens: TokenCounts, price: TokenPrices): Micros {
  const cached = BigInt(tokens.cachedTokens ?? 0);
  const written = BigInt(tokens.cacheWriteTokens ?? 0);
  const uncached = BigInt(tokens.promptTokens) - cached - written;
  const total =
    (uncached > 0n ? uncached : 0n) * BigInt(price.input) +
    cached * BigInt(price.cachedInput ?? price.input) +
    written * BigInt(price.cacheWrite ?? price.input) +
    BigInt(tokens.completionTokens) * BigInt(price.output);
  return clamp((total + MILLION - 1n) / MILLION);
}

/** A cost with the model's per-request fee added, within the largest amount the gateway holds. */
export function withFee(cost: Micros, price: Pick<ModelPrice, "perRequest">): Micros {
  return clamp(BigInt(cost) + BigInt(price.perRequest));
}

/** The highest price a prompt token can be charged at: what the worst case counts every prompt token at. */
export function worstPromptPrice(price: ModelPrice): Micros {
  return Math.max(price.input, price.cachedInput, price.cacheWrite);
}

// Absurd token counts can only come from a broken upstream. Clamp to the largest amount the gateway holds:
// a charge beyond it could push a balance below what doubles (and Lua) keep exact, and formatting refuses it.
function clamp(micros: bigint): Micros {
  return micros > BigInt(MAX_MICROS) ? MAX_MICROS : Number(micros);
}
