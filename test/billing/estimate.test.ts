import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { charge } from "../../src/billing/charge.js";
import {
  estimatedCompletionTokens,
  estimatedPromptTokens,
  type PromptSize,
  worstCase,
} from "../../src/billing/estimate.js";
import { Pricing } from "../../src/billing/pricing.js";
import { configSchema } from "../../src/config/schema.js";

const config = configSchema.parse({
  pricing: {
    default: { input: 100, output: 300 },
    models: { long: { input: 1, output: 2, maxOutputTokens: 32_000, maxImageTokens: 1000 } },
  },
});
const pricing = new Pricing(config.pricing);
const text = (textBytes: number): PromptSize => ({ textBytes, images: 0, audio: 0, video: 0 });

describe("worstCase", () => {
  it("counts every byte of text as a prompt token and the cap for each choice as the output", () => {
    const worst = worstCase("generation", text(2000), 100, 2, pricing.priceFor(null), config.estimate);
    expect(worst).toEqual({ promptTokens: 2000, completionTokens: 200, choices: 2, amount: 260_000 });
  });

  it("counts the prompt at the highest of its prices, and adds the per-request fee", () => {
    const cached = {
      ...pricing.priceFor(null),
      cachedInput: 50_000_000,
      cacheWrite: 125_000_000,
      perRequest: 7,
    };
    // 2000 × 125 ₽/M (cache writes cost most here) + 200 × 300 ₽/M + 7 µ₽.
    const worst = worstCase("generation", text(2000), 100, 2, cached, config.estimate);
    expect(worst.amount).toBe(250_000 + 60_000 + 7);
    // Cheaper cached tokens never lower the worst case below the input price.
    const cheaper = worstCase(
      "generation",
      text(2000),
      100,
      2,
      { ...cached, cacheWrite: 1 },
      config.estimate,
    );
    expect(cheaper.amount).toBe(200_000 + 60_000 + 7);
  });

  it("reserves no output for an input-only endpoint", () => {
    const worst = worstCase("input-only", text(2000), 4096, 1, pricing.priceFor(null), config.estimate);
    expect(worst).toEqual({ promptTokens: 2000, completionTokens: 0, choices: 1, amount: 200_000 });
  });

  it("counts each media part at its model's maximum instead of its bytes", () => {
    const prompt = { textBytes: 300, images: 2, audio: 1, video: 1 };
    const byDefault = worstCase("generation", prompt, 10, 1, pricing.priceFor(null), config.estimate);
    expect(byDefault.promptTokens).toBe(300 + 2 * 4096 + 4096 + 16_384);
    const long = worstCase("generation", prompt, 10, 1, pricing.priceFor("long"), config.estimate);
    expect(long.promptTokens).toBe(300 + 2 * 1000 + 4096 + 16_384);
  });
});

describe("the worst case, for any prices", () => {
  it("is never exceeded by a credible report within its bounds, however the prompt splits into cached and not", () => {
    const prices = fc.record({
      input: fc.nat({ max: 1e9 }),
      output: fc.nat({ max: 1e9 }),
      cachedInput: fc.nat({ max: 1e9 }),
      cacheWrite: fc.nat({ max: 1e9 }),
      perRequest: fc.nat({ max: 1e9 }),
    });
    const split = fc.record({
      bytes: fc.nat({ max: 100_000 }),
      cap: fc.integer({ min: 1, max: 10_000 }),
      promptShare: fc.double({ min: 0, max: 1, noNaN: true }),
      cachedShare: fc.double({ min: 0, max: 1, noNaN: true }),
      writeShare: fc.double({ min: 0, max: 1, noNaN: true }),
      completionShare: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(prices, split, (p, s) => {
        const price = { ...pricing.priceFor(null), ...p };
        const worst = worstCase("generation", text(s.bytes), s.cap, 1, price, config.estimate);
        const prompt = Math.floor(worst.promptTokens * s.promptShare);
        const cached = Math.floor(prompt * s.cachedShare);
        const written = Math.floor((prompt - cached) * s.writeShare);
        const result = charge({
          usageClass: "generation",
          processed: true,
          complete: true,
          status: 200,
          // Anthropic-style: the uncached rest as input_tokens, the cache's counts apart.
          reported: {
            prompt: prompt - cached - written,
            cacheRead: cached,
            cacheCreation: written,
            completion: Math.floor(worst.completionTokens * s.completionShare),
          },
          estimate: { promptTokens: 0, completionTokens: 0 },
          maxCompletionTokens: worst.completionTokens,
          maxPromptTokens: 1e9,
          price,
          reserved: worst.amount,
          overage: "charge",
        });
        expect(result).toMatchObject({ rejected: null, estimated: false, overage: 0 });
        expect(result.cost).toBeLessThanOrEqual(worst.amount);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("estimates of usage the upstream did not report", () => {
  it("takes the prompt from the request's text at usageBytesPerToken and its media at their maximum", () => {
    expect(estimatedPromptTokens(text(400), pricing.priceFor(null), config.estimate)).toBe(100);
    const prompt = { textBytes: 401, images: 1, audio: 0, video: 0 };
    expect(estimatedPromptTokens(prompt, pricing.priceFor(null), config.estimate)).toBe(101 + 4096);
  });

  it("takes the completion from the streamed events, else from the response bytes", () => {
    expect(estimatedCompletionTokens(4000, null, config.estimate)).toBe(1000);
    expect(estimatedCompletionTokens(4000, 17, config.estimate)).toBe(17);
  });
});
