import { describe, expect, it } from "vitest";
import { costOf, Pricing, withFee, worstPromptPrice } from "../../src/billing/pricing.js";
import { configSchema } from "../../src/config/schema.js";
import { formatRubles, MAX_MICROS } from "../../src/core/money.js";

const config = configSchema.parse({
  pricing: {
    default: { input: 100, output: 300 },
    models: {
      cheap: { input: "0.5", output: "1.25" },
      cached: { input: 2, output: 4, cachedInput: "0.5", cacheWrite: "2.5", perRequest: "0.01" },
      long: { input: 1, output: 2, maxOutputTokens: 32_000, contextTokens: 128_000, maxImageTokens: 1600 },
    },
  },
});
const LIMITS = { contextTokens: null, maxImageTokens: 4096, maxAudioTokens: 4096, maxVideoTokens: 16_384 };
const pricing = new Pricing(config.pricing);

describe("Pricing", () => {
  it("uses the model's own price, else the default, and takes from the default what a model leaves out", () => {
    expect(pricing.priceFor("cheap")).toEqual({
      input: 500_000,
      output: 1_250_000,
      cachedInput: 500_000,
      cacheWrite: 500_000,
      perRequest: 0,
      maxOutputTokens: 4096,
      ...LIMITS,
    });
    expect(pricing.priceFor("long")).toMatchObject({
      maxOutputTokens: 32_000,
      contextTokens: 128_000,
      maxImageTokens: 1600,
      maxAudioTokens: 4096,
    });
    expect(pricing.priceFor("unknown")).toEqual({
      input: 100_000_000,
      output: 300_000_000,
      cachedInput: 100_000_000,
      cacheWrite: 100_000_000,
      perRequest: 0,
      maxOutputTokens: 4096,
      ...LIMITS,
    });
    expect(pricing.priceFor(null)).toBe(pricing.priceFor("unknown"));
  });
});

describe("cache prices and the per-request fee", () => {
  it("default to the model's own input price and no fee, so that nothing changes until they are set", () => {
    expect(pricing.priceFor("cached")).toMatchObject({
      input: 2_000_000,
      cachedInput: 500_000,
      cacheWrite: 2_500_000,
      perRequest: 10_000,
    });
    const withDefaults = new Pricing(
      configSchema.parse({
        pricing: {
          default: { input: 10, cachedInput: 1, perRequest: "0.5" },
          models: { own: { input: 3, output: 4 } },
        },
      }).pricing,
    );
    // A model priced apart takes its own input price for its cache, but the default's fee.
    expect(withDefaults.priceFor("own")).toMatchObject({
      cachedInput: 3_000_000,
      cacheWrite: 3_000_000,
      perRequest: 500_000,
    });
    expect(withDefaults.priceFor(null)).toMatchObject({ cachedInput: 1_000_000, cacheWrite: 10_000_000 });
  });

  it("prices cached and cache-written prompt tokens at their prices, rounding the sum up once", () => {
    const price = pricing.priceFor("cached");
    // 100 uncached × 2 + 900 cached × 0.5 + 10 written × 2.5 + 50 completion × 4 (₽/M) = 875 µ₽.
    expect(
      costOf({ promptTokens: 1010, completionTokens: 50, cachedTokens: 900, cacheWriteTokens: 10 }, price),
    ).toBe(200 + 450 + 25 + 200);
    expect(withFee(875, price)).toBe(10_875);
    expect(withFee(MAX_MICROS, price)).toBe(MAX_MICROS);
  });

  it("sizes the worst case at the highest of the prompt prices", () => {
    expect(worstPromptPrice(pricing.priceFor("cached"))).toBe(2_500_000);
    expect(worstPromptPrice(pricing.priceFor("cheap"))).toBe(500_000);
  });
});

describe("costOf", () => {
  it("is prompt × input + completion × output per million tokens, exactly", () => {
    // 1000 × 100 ₽/M + 500 × 300 ₽/M = 0.1 + 0.15 = 0.25 ₽
    expect(costOf({ promptTokens: 1000, completionTokens: 500 }, pricing.priceFor(null))).toBe(250_000);
    // 3 × 0.5 ₽/M + 7 × 1.25 ₽/M = 1.5 + 8.75 µ₽ = 10.25 µ₽, rounded up
    expect(costOf({ promptTokens: 3, completionTokens: 7 }, pricing.priceFor("cheap"))).toBe(11);
    expect(costOf({ promptTokens: 0, completionTokens: 0 }, pricing.priceFor(null))).toBe(0);
  });

  it("stays exact where floating point would not", () => {
    const price = { ...pricing.priceFor(null), input: 755_724_435, output: 0, maxOutputTokens: 1 };
    // The product passes 2^53: in doubles, ceil(42897354733 × 755724435 / 1e6) comes out one micro-ruble short.
    expect(Math.ceil((42_897_354_733 * 755_724_435) / 1e6)).toBe(32_418_579_168_591);
    expect(costOf({ promptTokens: 42_897_354_733, completionTokens: 0 }, price)).toBe(32_418_579_168_592);
  });

  it("never exceeds the largest amount the gateway holds, however absurd the token counts", () => {
    const price = pricing.priceFor(null);
    // 10^13 prompt tokens at 100 ₽/M is 10^9 ₽: one micro-ruble past the largest amount.
    expect(costOf({ promptTokens: 10_000_000_000_000, completionTokens: 0 }, price)).toBe(MAX_MICROS);
    const absurd = costOf({ promptTokens: Number.MAX_SAFE_INTEGER, completionTokens: 1e300 }, price);
    expect(absurd).toBe(MAX_MICROS);
    // Below the clamp every micro-ruble counts.
    expect(costOf({ promptTokens: 9_999_999_999_999, completionTokens: 0 }, price)).toBe(MAX_MICROS - 99);
    // A balance charged that much twice can still be written out.
    expect(formatRubles(-2 * absurd)).toBe("-1999999999.999998");
  });
});
