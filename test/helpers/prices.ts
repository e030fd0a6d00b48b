// A model's price for the billing policy's unit tests: whole micro-rubles per token, so that every expected
// charge can be worked out by hand.

import type { ModelPrice } from "../../src/core/price.js";

/** 1 µ₽ per prompt token, 2 µ₽ per completion token (prices are µ₽ per million tokens). */
export const TOKEN_PRICE: ModelPrice = {
  input: 1_000_000,
  output: 2_000_000,
  cachedInput: 1_000_000,
  cacheWrite: 1_000_000,
  perRequest: 0,
  maxOutputTokens: 100,
  contextTokens: null,
  maxImageTokens: 10,
  maxAudioTokens: 10,
  maxVideoTokens: 10,
};
