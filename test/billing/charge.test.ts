// The charging policy, outcome by outcome, and as properties over any facts at all.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ChargeFacts, charge } from "../../src/billing/charge.js";
import { costOf } from "../../src/billing/pricing.js";
import { MAX_MICROS } from "../../src/core/money.js";
import { TOKEN_PRICE } from "../helpers/prices.js";

/** 1 µ₽ per prompt token, 2 µ₽ per completion token. */
const PRICE = TOKEN_PRICE;

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
  cachedTokens = 0,
  cacheWriteTokens = 0,
) => ({
  tokens: { promptTokens, completionTokens, cachedTokens, cacheWriteTokens },
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
      exact(22, 1, 24, 7, 5),
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
    [
      "more cached prompt tokens than prompt tokens",
      { prompt: 5, cached: 6, completion: 5 },
      "cached_above_prompt",
    ],
    ["a cached count that is not a count", { prompt: 5, cached: "all", completion: 5 }, "not_a_count"],
  ])("does not believe %s, and estimates within the reservation", (_what, reported, reason) => {
    const result = charge(facts({ reported, overage: "charge" }));
    expect(result).toEqual({
      tokens: { promptTokens: 40, completionTokens: 30, cachedTokens: 0, cacheWriteTokens: 0 },
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

/** 1 µ₽ per uncached prompt token, 0.25 per cached, 1.25 per written to the cache, 2 per completion, 7 a request. */
const CACHE_PRICE = { ...PRICE, cachedInput: 250_000, cacheWrite: 1_250_000, perRequest: 7 };

describe("charge, with cache prices and a per-request fee", () => {
  const priced = (over: Partial<ChargeFacts>) =>
    charge(facts({ price: CACHE_PRICE, reserved: 100_000, ...over }));

  it("prices OpenAI-style cached tokens, part of prompt_tokens, at cachedInput", () => {
    // 200 uncached × 1 + 800 cached × 0.25 + 10 completion × 2 + the fee of 7.
    expect(priced({ reported: { prompt: 1000, cached: 800, completion: 10 } })).toEqual({
      tokens: { promptTokens: 1000, completionTokens: 10, cachedTokens: 800, cacheWriteTokens: 0 },
      cost: 200 + 200 + 20 + 7,
      estimated: false,
      rejected: null,
      overage: 0,
    });
  });

  it("prices Anthropic-style counts, apart from input_tokens, at their prices", () => {
    // input_tokens 100 (uncached) + 600 read + 40 written: a prompt of 740 tokens.
    const result = priced({ reported: { prompt: 100, cacheRead: 600, cacheCreation: 40, completion: 10 } });
    expect(result.tokens).toEqual({
      promptTokens: 740,
      completionTokens: 10,
      cachedTokens: 600,
      cacheWriteTokens: 40,
    });
    expect(result.cost).toBe(100 + 150 + 50 + 20 + 7);
  });

  it("rounds the sum up once, not each part", () => {
    // 3 cached × 0.25 + 1 written × 1.25 = 2 µ₽ exactly; rounding each part up would make it 3.
    const result = priced({ reported: { prompt: 0, cacheRead: 3, cacheCreation: 1, completion: 0 } });
    expect(result.cost).toBe(2 + 7);
  });

  it("charges the input price for every prompt token when the server reports no cache", () => {
    expect(priced({ reported: { prompt: 1000, completion: 10 } }).cost).toBe(1000 + 20 + 7);
    // No report at all: the estimate's prompt at the input price.
    expect(priced({})).toMatchObject({ cost: 40 + 60 + 7, estimated: true, tokens: { cachedTokens: 0 } });
  });

  it("keeps a credible cached count with the prompt it belongs to when the completion is estimated", () => {
    const cut = priced({ complete: false, reported: { prompt: 1000, cached: 800 } });
    expect(cut).toMatchObject({ tokens: { promptTokens: 1000, cachedTokens: 800, completionTokens: 30 } });
    expect(cut.cost).toBe(200 + 200 + 60 + 7);
  });

  it("refuses a report with more cached tokens than prompt tokens as faulty, and estimates at the input price", () => {
    const result = priced({ reported: { prompt: 100, cached: 101, completion: 10 } });
    expect(result).toMatchObject({ rejected: "cached_above_prompt", estimated: true, cost: 40 + 60 + 7 });
    expect(result.tokens).toMatchObject({ promptTokens: 40, cachedTokens: 0 });
  });

  it("charges the fee to no request the server did not take, nor to an error status", () => {
    expect(priced({ processed: false, reported: { prompt: 5, completion: 5 } }).cost).toBe(0);
    expect(priced({ status: 500 }).cost).toBe(0);
    expect(priced({ status: 400, reported: { prompt: 9, cached: 4 } }).cost).toBe(5 + 1);
  });

  it("charges the fee to a request cut off by its client after the server took it", () => {
    expect(priced({ complete: false }).cost).toBe(40 + 60 + 7);
  });

  it("is exactly the sum of the parts at their prices, rounded up once, for any credible report", () => {
    const counts = fc
      .record({
        fresh: fc.nat({ max: 1e7 }),
        cached: fc.nat({ max: 1e7 }),
        written: fc.nat({ max: 1e7 }),
        completion: fc.nat({ max: 1e6 }),
        anthropic: fc.boolean(),
      })
      .filter(({ written, anthropic }) => anthropic || written === 0);
    const prices = fc.record({
      input: fc.nat({ max: 1e9 }),
      output: fc.nat({ max: 1e9 }),
      cachedInput: fc.nat({ max: 1e9 }),
      cacheWrite: fc.nat({ max: 1e9 }),
      perRequest: fc.nat({ max: 1e9 }),
    });
    fc.assert(
      fc.property(counts, prices, (c, p) => {
        const reported = c.anthropic
          ? { prompt: c.fresh, cacheRead: c.cached, cacheCreation: c.written, completion: c.completion }
          : { prompt: c.fresh + c.cached, cached: c.cached, completion: c.completion };
        const result = charge(
          facts({
            reported,
            price: { ...PRICE, ...p },
            maxPromptTokens: 1e8,
            maxCompletionTokens: 1e6,
            reserved: MAX_MICROS,
          }),
        );
        const sum =
          BigInt(c.fresh) * BigInt(p.input) +
          BigInt(c.cached) * BigInt(p.cachedInput) +
          BigInt(c.written) * BigInt(p.cacheWrite) +
          BigInt(c.completion) * BigInt(p.output);
        const expected = (sum + 999_999n) / 1_000_000n + BigInt(p.perRequest);
        expect(result).toMatchObject({ rejected: null, estimated: false });
        expect(result.tokens).toEqual({
          promptTokens: c.fresh + c.cached + c.written,
          completionTokens: c.completion,
          cachedTokens: c.cached,
          cacheWriteTokens: c.written,
        });
        expect(BigInt(result.cost)).toBe(expected < BigInt(MAX_MICROS) ? expected : BigInt(MAX_MICROS));
      }),
      { numRuns: 2000 },
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
        cached: anyCount,
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
      cachedInput: fc.nat({ max: 1e9 }),
      cacheWrite: fc.nat({ max: 1e9 }),
      perRequest: fc.nat({ max: 1e7 }),
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
        const fee = f.processed && f.status < 400 ? f.price.perRequest : 0;
        const full = Math.min(MAX_MICROS, costOf(result.tokens, f.price) + fee);
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
