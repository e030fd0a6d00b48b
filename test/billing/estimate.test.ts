import { describe, expect, it } from "vitest";
import { estimatedUsage, worstCase } from "../../src/billing/estimate.js";
import { Pricing } from "../../src/billing/pricing.js";
import { configSchema } from "../../src/config/schema.js";

const config = configSchema.parse({
  pricing: {
    default: { input: 100, output: 300 },
    models: { long: { input: 1, output: 2, maxOutputTokens: 32_000 } },
  },
});
const pricing = new Pricing(config.pricing);

describe("estimates", () => {
  it("takes the whole body as prompt and the largest output for each choice as the worst case", () => {
    const worst = worstCase(2000, 100, 2, pricing.priceFor(null), config.estimate);
    expect(worst).toEqual({ promptTokens: 2000, completionTokens: 200, choices: 2, amount: 260_000 });
    expect(worstCase(10, null, 1, pricing.priceFor("long"), config.estimate).completionTokens).toBe(32_000);
  });

  it("estimates missing usage from the traffic, keeping what the upstream did report", () => {
    expect(estimatedUsage({}, 400, 4000, null, config.estimate)).toEqual({
      promptTokens: 100,
      completionTokens: 1000,
    });
    expect(estimatedUsage({}, 400, 4000, 17, config.estimate)).toEqual({
      promptTokens: 100,
      completionTokens: 17,
    });
    expect(estimatedUsage({ promptTokens: 7 }, 400, 4000, 17, config.estimate)).toEqual({
      promptTokens: 7,
      completionTokens: 17,
    });
  });
});
