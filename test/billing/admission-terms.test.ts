// What admitting a request commits to, as a table: the cap forwarded, the worst case, the prompt estimate and
// the most tokens a credible report may claim, for each usage class; and the refusal of a cap above the
// model's context length, naming the fields that set it.

import { describe, expect, it } from "vitest";
import { type AdmissionAsk, admissionTerms } from "../../src/billing/admission-terms.js";
import { Pricing } from "../../src/billing/pricing.js";
import { configSchema } from "../../src/config/schema.js";
import { GatewayError } from "../../src/core/errors.js";

const config = configSchema.parse({
  pricing: {
    default: { input: 1000, output: 2000, maxOutputTokens: 100 },
    models: { small: { input: 1000, output: 2000, maxOutputTokens: 100, contextTokens: 500 } },
  },
});
const pricing = new Pricing(config.pricing);
const ESTIMATE = { reserveBytesPerToken: 1, usageBytesPerToken: 4 };
const PROMPT = { textBytes: 40, images: 0, audio: 0, video: 0 };

function ask(over: Partial<AdmissionAsk>): AdmissionAsk {
  return {
    model: null,
    usageClass: "generation",
    prompt: PROMPT,
    maxOutputTokens: null,
    capFields: "max_tokens",
    choices: 1,
    ...over,
  };
}

describe("admissionTerms", () => {
  it.each([
    // usage class, body's cap, choices → cap, worst prompt, worst completion, estimate, max completion
    ["generation", null, 1, 100, 40, 100, 10, 100],
    ["generation", 20, 2, 20, 40, 40, 10, 40],
    ["input-only", null, 1, 100, 40, 0, 10, 0],
    [null, null, 1, 100, 0, 0, 0, null],
  ] as const)(
    "%s with cap %s × %s choices",
    (usageClass, cap, choices, wantCap, prompt, completion, estimate, most) => {
      const terms = admissionTerms(
        ask({ usageClass, maxOutputTokens: cap, choices }),
        pricing.priceFor(null),
        ESTIMATE,
        2_000_000,
      );
      expect(terms.cap).toBe(wantCap);
      expect(terms.worst.promptTokens).toBe(prompt);
      expect(terms.worst.completionTokens).toBe(completion);
      expect(terms.worst.amount).toBe(prompt * 1000 + completion * 2000);
      expect(terms.promptEstimate).toBe(estimate);
      expect(terms.maxCompletionTokens).toBe(most);
      expect(terms.maxPromptTokens).toBe(2_000_000);
    },
  );

  it("takes the model's context length as the most prompt tokens a report may claim", () => {
    const terms = admissionTerms(ask({ model: "small" }), pricing.priceFor("small"), ESTIMATE, 2_000_000);
    expect(terms.maxPromptTokens).toBe(500);
  });

  it("refuses a cap above the model's context length, naming the fields and the model", () => {
    const refuse = () =>
      admissionTerms(
        ask({ model: "small", maxOutputTokens: 501, capFields: "max_tokens or max_completion_tokens" }),
        pricing.priceFor("small"),
        ESTIMATE,
        2_000_000,
      );
    expect(refuse).toThrow(GatewayError);
    expect(refuse).toThrow(
      'max_tokens or max_completion_tokens must be a whole number from 1 to 500, the context length of model "small"; got 501.',
    );
    expect(
      admissionTerms(ask({ model: "small", maxOutputTokens: 500 }), pricing.priceFor("small"), ESTIMATE, 1)
        .cap,
    ).toBe(500);
  });
});
