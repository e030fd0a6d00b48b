// A budget window as every surface writes it: amounts in rubles exact to the micro-ruble, what remains never
// below nothing, the reset as ISO-8601 UTC — exactly what its schema describes.

import { describe, expect, it } from "vitest";
import { BudgetWindowView } from "../../src/core/budget-window-schema.js";
import { budgetWindowView } from "../../src/core/budget-window-view.js";

describe("budgetWindowView", () => {
  it("writes a window's amount, spending and remainder in rubles, and when its period ends", () => {
    const view = budgetWindowView("week", 5_000_000, 1_250_001, Date.parse("2026-11-23T00:00:00Z"));
    expect(view).toEqual({
      period: "week",
      amount: 5,
      spent: 1.250001,
      remaining: 3.749999,
      resets_at: "2026-11-23T00:00:00.000Z",
    });
    expect(BudgetWindowView.strict().parse(view)).toEqual(view);
  });

  it("shows nothing remaining, never less, when spending took a window past its amount", () => {
    expect(budgetWindowView("day", 1_000_000, 1_500_000, 0)).toMatchObject({ spent: 1.5, remaining: 0 });
  });
});
