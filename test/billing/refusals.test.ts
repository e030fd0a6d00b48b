// The messages of requests the reserve script refused, written for the person who must act: what is left,
// what the request could have cost, the largest max_tokens that would fit, and when the budget resets.

import { describe, expect, it } from "vitest";
import type { WorstCase } from "../../src/billing/estimate.js";
import { Pricing } from "../../src/billing/pricing.js";
import { refusalError } from "../../src/billing/refusals.js";
import { configSchema } from "../../src/config/schema.js";
import { PeriodCalendar } from "../../src/core/periods.js";
import type { Refusal } from "../../src/store/billing/reserve-script.js";

// 1 ₽ per 1000 prompt tokens (1000 µ₽ each), 2 ₽ per 1000 completion tokens (2000 µ₽ each).
const PRICE = new Pricing(
  configSchema.parse({ pricing: { default: { input: 1000, output: 2000 } } }).pricing,
).priceFor(null);
const PERIODS = new PeriodCalendar("UTC").at(Date.parse("2026-11-21T10:00:00Z"));
// 100 prompt tokens and 2 choices of 500 completion tokens: 0.1 ₽ + 2 ₽.
const WORST: WorstCase = { promptTokens: 100, completionTokens: 1000, choices: 2, amount: 2_100_000 };

function refusal(fields: Partial<Refusal> & Pick<Refusal, "code">): Refusal {
  return { ok: false, expired: 0, ...fields };
}

function message(fields: Partial<Refusal> & Pick<Refusal, "code">, worst = WORST, price = PRICE): string {
  return refusalError(refusal(fields), worst, price, { kind: "named", model: "big" }, PERIODS).message;
}

describe("model_not_allowed", () => {
  it("names the model asked for and the models allowed", () => {
    const error = refusalError(
      refusal({ code: "model_not_allowed", allowedModels: ["a", "b"] }),
      WORST,
      PRICE,
      { kind: "named", model: "big" },
      PERIODS,
    );
    expect(error).toMatchObject({ code: "model_not_allowed", status: 403 });
    expect(error.message).toBe('This key may not use model "big". Allowed models: a, b.');
  });

  it("asks for the model field when the request names none", () => {
    for (const model of [{ kind: "none" }, { kind: "unknown" }] as const) {
      expect(
        refusalError(
          refusal({ code: "model_not_allowed", allowedModels: ["a"] }),
          WORST,
          PRICE,
          model,
          PERIODS,
        ).message,
      ).toBe(
        'This key is limited to the models a, and the request does not name one; set the "model" field.',
      );
    }
  });
});

describe("budget_exceeded", () => {
  it("names the window that refused, the key's or the account's, in the message and in a field", () => {
    const used = refusalError(
      refusal({
        code: "budget_exceeded",
        budget: 5_000_000,
        spent: 5_000_000,
        period: "month",
        scope: "account",
      }),
      WORST,
      PRICE,
      { kind: "named", model: "big" },
      PERIODS,
    );
    expect(used.message).toBe(
      "The account's budget of 5 RUB per month is used up (5 RUB spent); it resets at 2026-12-01T00:00:00.000Z.",
    );
    expect(used.fields).toEqual({ window: { scope: "account", period: "month" } });
    const small = refusalError(
      refusal({ code: "budget_exceeded", budget: 3_000_000, spent: 0, period: "day", scope: "key" }),
      WORST,
      PRICE,
      { kind: "named", model: "big" },
      PERIODS,
    );
    expect(small.message).toContain("of this key's daily budget remain");
    expect(small.fields).toEqual({ window: { scope: "key", period: "day" } });
  });

  it("says a used-up budget is used up, and when it resets", () => {
    expect(message({ code: "budget_exceeded", budget: 5_000_000, spent: 5_000_001, period: "week" })).toBe(
      "This key's budget of 5 RUB per week is used up (5.000001 RUB spent); it resets at 2026-11-23T00:00:00.000Z.",
    );
  });

  it("gives the worst case, what remains, what requests in flight hold, and the largest max_tokens that fits", () => {
    // 0.7 ₽ available: 0.1 ₽ of prompt leaves 0.6 ₽ = 300 completion tokens for 2 choices = 150 each.
    expect(
      message({
        code: "budget_exceeded",
        budget: 1_000_000,
        spent: 200_000,
        keyReserved: 100_000,
        period: "month",
      }),
    ).toBe(
      "This request could cost up to 2.1 RUB (100 prompt + 1000 completion tokens), but 0.8 RUB of this key's " +
        "monthly budget remain, of which 0.1 RUB are held by requests in flight. Set max_tokens to at most 150 to " +
        "fit. The budget resets at 2026-12-01T00:00:00.000Z.",
    );
  });

  it("says when even the prompt does not fit, and leaves out what is held when nothing is", () => {
    expect(message({ code: "budget_exceeded", budget: 50_000, spent: 0, period: "day" })).toBe(
      "This request could cost up to 2.1 RUB (100 prompt + 1000 completion tokens), but 0.05 RUB of this key's " +
        "daily budget remain. Even the prompt alone does not fit. The budget resets at 2026-11-22T00:00:00.000Z.",
    );
  });

  it("suggests no max_tokens when output is free", () => {
    const free = { ...PRICE, output: 0 };
    expect(
      message({ code: "budget_exceeded", budget: 50_000, spent: 0, period: "day" }, WORST, free),
    ).not.toMatch(/max_tokens|prompt alone/);
  });
});

describe("insufficient_balance", () => {
  it("asks for a top-up when the balance is spent", () => {
    for (const balance of [0, -1]) {
      expect(message({ code: "insufficient_balance", balance })).toBe(
        `The account balance is ${balance === 0 ? "0" : "-0.000001"} RUB. Top up the account to continue.`,
      );
    }
  });

  it("gives the worst case, the balance, what requests in flight hold, and what fits", () => {
    // 1.2 ₽ free of 1.5 ₽: 0.1 ₽ of prompt leaves 1.1 ₽ = 550 completion tokens for 2 choices = 275 each.
    const error = refusalError(
      refusal({ code: "insufficient_balance", balance: 1_500_000, accountReserved: 300_000 }),
      WORST,
      PRICE,
      { kind: "named", model: "big" },
      PERIODS,
    );
    expect(error).toMatchObject({ code: "insufficient_balance", status: 402 });
    expect(error.message).toBe(
      "This request could cost up to 2.1 RUB, but the account balance is 1.5 RUB, of which 0.3 RUB are held by " +
        "requests in flight. Set max_tokens to at most 275 to fit. Top up the account to continue.",
    );
  });
});

describe("other refusals", () => {
  it("are the error table's own", () => {
    for (const code of ["invalid_api_key", "key_revoked", "key_expired"] as const) {
      const error = refusalError(refusal({ code }), WORST, PRICE, { kind: "none" }, PERIODS);
      expect(error.code).toBe(code);
      expect(error.status).toBe(401);
    }
  });
});
