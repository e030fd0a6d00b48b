// What receivers get: each type's data from the fields its script wrote, in rubles exact to the micro-ruble.

import { describe, expect, it } from "vitest";
import { eventData } from "../../src/alerts/event-data.js";
import { EVENT_TYPES } from "../../src/core/event-types.js";

describe("event data", () => {
  it("turns a budget threshold's µ₽ into rubles, with the period's reset time in the billing time zone", () => {
    const fields = {
      name: "prod",
      threshold: "80",
      budget: "999999999999999",
      spent: "800000000000000",
      period: "month",
      period_start: String(Date.parse("2026-10-31T21:00:00Z")),
    };
    expect(eventData("budget.threshold", fields, "Europe/Moscow")).toEqual({
      scope: "key",
      key_name: "prod",
      threshold: 80,
      period: "month",
      amount: 999999999.999999,
      spent: 800000000,
      remaining: 199999999.999999,
      resets_at: "2026-11-30T21:00:00.000Z",
      currency: "RUB",
      budget: 999999999.999999,
      reset_at: "2026-11-30T21:00:00.000Z",
    });
  });

  it("names the account, not a key, for a threshold of the account's own window", () => {
    const fields = {
      name: "Search",
      threshold: "80",
      budget: "300000000000",
      spent: "240000000000",
      period: "month",
      period_start: String(Date.parse("2026-10-31T21:00:00Z")),
      scope: "account",
    };
    expect(eventData("budget.threshold", fields, "Europe/Moscow")).toMatchObject({
      scope: "account",
      account_name: "Search",
      threshold: 80,
      amount: 300000,
      remaining: 60000,
    });
    expect(eventData("budget.threshold", fields, "Europe/Moscow")).not.toHaveProperty("key_name");
  });

  it("never shows a negative remaining amount, and shows a negative balance as it is", () => {
    const data = eventData(
      "budget.threshold",
      { name: "k", threshold: "100", budget: "1000000", spent: "1500000", period: "day", period_start: "0" },
      "UTC",
    );
    expect(data).toMatchObject({ spent: 1.5, remaining: 0 });
    expect(eventData("balance.exhausted", { balance: "-500000" }, "UTC")).toEqual({
      balance: -0.5,
      currency: "RUB",
    });
  });

  it("has no reset time for a threshold written without its period's start, rather than no event", () => {
    const data = eventData("budget.threshold", { budget: "1000000", spent: "800000", period: "day" }, "UTC");
    expect(data).toMatchObject({ amount: 1, remaining: 0.2, resets_at: null, reset_at: null });
  });

  it("has a shape for every type, and passes the fields of a type it does not know", () => {
    for (const type of EVENT_TYPES) expect(typeof eventData(type, {}, "UTC")).toBe("object");
    expect(
      eventData("key.created", { name: "k", expires_at: "", budget: "", period: "month" }, "UTC"),
    ).toEqual({
      key_name: "k",
      expires_at: null,
      period: "month",
      amount: null,
      currency: "RUB",
      budget: null,
    });
    expect(
      eventData("key.created", { name: "k", expires_at: "", budget: "2500000", period: "day" }, "UTC"),
    ).toMatchObject({ period: "day", amount: 2.5, budget: 2.5 });
    const rotated = { name: "k", previous_hint: "a1b2", hint: "c3d4", grace_until: "1763805600000" };
    expect(eventData("key.rotated", rotated, "UTC")).toEqual({
      key_name: "k",
      hint: "c3d4",
      previous_hint: "a1b2",
      grace_until: "2025-11-22T10:00:00.000Z",
    });
    expect(eventData("key.rotated", { ...rotated, grace_until: "" }, "UTC")).toMatchObject({
      grace_until: null,
    });
    expect(eventData("key.disabled", { name: "k" }, "UTC")).toEqual({ key_name: "k" });
    expect(eventData("key.future", { a: "1" }, "UTC")).toEqual({ a: "1" });
  });
});
