// The charging policy, outcome by outcome, and as properties over any facts at all.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ChargeFacts, charge } from "../../src/billing/charge.js";
import { costOf } from "../../src/billing/pricing.js";
import { MAX_MICROS } from "../../src/core/money.js";

/** 1 µ₽ per prompt token, 2 µ₽ per completion token (prices are µ₽ per million tokens). */
const PRICE = {
  input: 1_000_000,
  output: 2_000_000,
  maxOutputTokens: 100,
  contextTokens: null,
  maxImageTokens: 10,
  maxAudioTokens: 10,
  maxVideoTokens: 10,
};

function facts(over: Partial<ChargeFacts> = {}): ChargeFacts {
  return {
    usageClass: "generation",
    processed: true,
    complete: true,
    status: 200,
    reported: {},
    estimate: { promptTokens: 40, completionTokens: 30 },
    maxCompletionTokens: 100,
    maxPromptTokens: 1000,
    price: PRICE,
    reserved: 500,
    overage: "absorb",
    ...over,
  };
}

const exact = (
  promptTokens: number,
  completionTokens: number,
  cost = promptTokens + 2 * completionTokens,
) => ({
  tokens: { promptTokens, completionTokens },
  cost,
  estimated: false,
  rejected: null,
  overage: 0,
});

describe("charge", () => {
  it.each<[string, Partial<ChargeFacts>, object]>([
    [
      "nothing for a request the server never took",
      { processed: false, reported: { prompt: 5, completion: 5 } },
      exact(0, 0, 0),
    ],
    ["a complete report, exactly", { reported: { prompt: 10, completion: 20, total: 30 } }, exact(10, 20)],
    [
      "Anthropic's cached prompt tokens as prompt tokens",
      { reported: { prompt: 10, cacheCreation: 5, cacheRead: 7, completion: 1 } },
      exact(22, 1),
    ],
    [
      "an embedding's prompt tokens alone",
      { usageClass: "input-only", reported: { prompt: 12, total: 12 } },
      exact(12, 0),
    ],
    [
      "a rerank's total alone as its prompt",
      { usageClass: "input-only", reported: { total: 24 } },
      exact(24, 0),
    ],
    ["an error status for what it reported", { status: 400, reported: { prompt: 9 } }, exact(9, 0)],
    ["an error status without a report: nothing", { status: 500 }, exact(0, 0, 0)],
    [
      "a credible report beyond the reservation up to the reservation, the rest as overage",
      { reported: { prompt: 400, completion: 100 }, reserved: 500 },
      { ...exact(400, 100), cost: 500, overage: 100 },
    ],
    [
      "a credible report beyond the reservation in full with overage: charge",
      { reported: { prompt: 400, completion: 100 }, reserved: 500, overage: "charge" },
      { ...exact(400, 100), cost: 600, overage: 100 },
    ],
    [
      "a stream cut off after its final report, exactly",
      {
        complete: false,
        reported: { prompt: 10, completion: 30 },
        estimate: { promptTokens: 40, completionTokens: 30 },
      },
      exact(10, 30),
    ],
  ])("charges %s", (_what, over, expected) => {
    expect(charge(facts(over))).toEqual(expected);
  });

  it.each<[string, Partial<ChargeFacts>, object]>([
    ["no report", {}, { promptTokens: 40, completionTokens: 30 }],
    [
      "a report without completion tokens",
      { reported: { prompt: 12 } },
      { promptTokens: 12, completionTokens: 30 },
    ],
    [
      "a stream cut off after Anthropic's message_start",
      { complete: false, reported: { prompt: 25, completion: 1 } },
      { promptTokens: 25, completionTokens: 30 },
    ],
    [
      "a stream cut off among Ollama's zero counts",
      { complete: false, reported: { prompt: 0, completion: 0, total: 0 } },
      { promptTokens: 40, completionTokens: 30 },
    ],
    [
      "a streamed estimate beyond the output cap, at the cap",
      { estimate: { promptTokens: 40, completionTokens: 5000 }, reserved: 10_000 },
      { promptTokens: 40, completionTokens: 100 },
    ],
    [
      "an input-only request, with no completion",
      { usageClass: "input-only" },
      { promptTokens: 40, completionTokens: 0 },
    ],
  ])("estimates, keeping what was credibly reported, for %s", (_what, over, tokens) => {
    const result = charge(facts(over));
    expect(result).toMatchObject({ tokens, estimated: true, rejected: null, overage: 0 });
    expect(result.cost).toBe(Math.min(costOf(tokens as never, PRICE), facts(over).reserved));
  });

  it("never charges an estimate beyond the reservation", () => {
    expect(charge(facts({ reserved: 50 })).cost).toBe(50);
  });

  it.each<[string, object, string]>([
    ["a negative count", { prompt: -1, completion: 5 }, "not_a_count"],
    ["a fraction", { prompt: 1.5, completion: 5 }, "not_a_count"],
    ["a string", { prompt: "12", completion: 5 }, "not_a_count"],
    ["2^53", { prompt: 2 ** 53, completion: 5 }, "not_a_count"],
    [
      "Number.MAX_SAFE_INTEGER tokens",
      { prompt: 5, completion: Number.MAX_SAFE_INTEGER },
      "completion_above_cap",
    ],
    ["more completion tokens than cap × choices", { prompt: 5, completion: 101 }, "completion_above_cap"],
    ["more prompt tokens than the model's context", { prompt: 1001, completion: 5 }, "prompt_above_limit"],
    ["an invalid total", { prompt: 5, completion: 5, total: -3 }, "not_a_count"],
  ])("does not believe %s, and estimates within the reservation", (_what, reported, reason) => {
    const result = charge(facts({ reported, overage: "charge" }));
    expect(result).toEqual({
      tokens: { promptTokens: 40, completionTokens: 30 },
      cost: 100,
      estimated: true,
      rejected: reason,
      overage: 0,
    });
  });

  it("does not believe completion tokens for an input-only endpoint", () => {
    expect(charge(facts({ usageClass: "input-only", reported: { prompt: 4, completion: 3 } })).rejected).toBe(
      "completion_above_cap",
    );
  });

  it("charges an error status nothing when its report is not credible", () => {
    expect(charge(facts({ status: 502, reported: { prompt: -5 } }))).toMatchObject({
      cost: 0,
      rejected: "not_a_count",
    });
  });

  it("bounds an unknown endpoint's completion by the prompt bound, as it has no cap", () => {
    const other = facts({ usageClass: "other", maxCompletionTokens: null, reserved: 100_000 });
    expect(charge({ ...other, reported: { prompt: 5, completion: 1000 } })).toEqual(exact(5, 1000));
    expect(charge({ ...other, reported: { prompt: 5, completion: 1001 } }).rejected).toBe(
      "completion_above_cap",
    );
  });
});

describe("charge, for any facts", () => {
  const anyCount = fc.oneof(
    fc.nat({ max: 10_000 }),
    fc.integer(),
    fc.double(),
    fc.constantFrom(Number.MAX_SAFE_INTEGER, 2 ** 53, -1, Number.NaN, Number.POSITIVE_INFINITY),
    fc.string(),
    fc.constant(null),
    fc.boolean(),
  );
  const anyFacts = fc.record({
    usageClass: fc.constantFrom("generation" as const, "input-only" as const, "other" as const),
    processed: fc.boolean(),
    complete: fc.boolean(),
    status: fc.constantFrom(200, 201, 400, 429, 500, 0),
    reported: fc.record(
      {
        prompt: anyCount,
        completion: anyCount,
        total: anyCount,
        cacheCreation: anyCount,
        cacheRead: anyCount,
      },
      { requiredKeys: [] },
    ),
    estimate: fc.record({ promptTokens: fc.nat({ max: 1e9 }), completionTokens: fc.nat({ max: 1e9 }) }),
    maxCompletionTokens: fc.option(fc.nat({ max: 1e7 }), { nil: null }),
    maxPromptTokens: fc.nat({ max: 1e7 }),
    price: fc.record({
      input: fc.nat({ max: 1e9 }),
      output: fc.nat({ max: 1e9 }),
      maxOutputTokens: fc.constant(100),
      contextTokens: fc.constant(null),
      maxImageTokens: fc.constant(10),
      maxAudioTokens: fc.constant(10),
      maxVideoTokens: fc.constant(10),
    }),
    reserved: fc.nat({ max: MAX_MICROS }),
    overage: fc.constantFrom("absorb" as const, "charge" as const),
  });

  it("never throws, and charges a whole number of micro-rubles no larger than the reservation (but for charged overage)", () => {
    fc.assert(
      fc.property(anyFacts, (f) => {
        const result = charge(f);
        expect(Number.isSafeInteger(result.cost) && result.cost >= 0).toBe(true);
        expect(Number.isSafeInteger(result.overage) && result.overage >= 0).toBe(true);
        expect(
          Number.isSafeInteger(result.tokens.promptTokens) &&
            Number.isSafeInteger(result.tokens.completionTokens),
        ).toBe(true);
        if (f.overage === "absorb" || result.estimated) expect(result.cost).toBeLessThanOrEqual(f.reserved);
        else expect(result.cost).toBe(Math.min(f.reserved, result.cost - result.overage) + result.overage);
      }),
      { numRuns: 2000 },
    );
  });

  it("charges what the counts it settled on cost, capped by the reservation", () => {
    fc.assert(
      fc.property(anyFacts, (f) => {
        const result = charge(f);
        const full = costOf(result.tokens, f.price);
        if (result.estimated || f.overage === "absorb") expect(result.cost).toBe(Math.min(full, f.reserved));
        else expect(result.cost).toBe(full);
      }),
      { numRuns: 2000 },
    );
  });

  it("believes only what a request could have produced", () => {
    fc.assert(
      fc.property(anyFacts, (f) => {
        const result = charge(f);
        if (result.estimated || !f.processed) return;
        const bound = f.usageClass === "input-only" ? 0 : (f.maxCompletionTokens ?? f.maxPromptTokens);
        expect(result.tokens.completionTokens).toBeLessThanOrEqual(bound);
        expect(result.tokens.promptTokens).toBeLessThanOrEqual(f.maxPromptTokens);
      }),
      { numRuns: 2000 },
    );
  });
});
