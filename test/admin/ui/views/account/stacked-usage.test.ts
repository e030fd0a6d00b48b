// The account overview's stacks: the range's biggest spenders (keys or models) one stack each and the rest in
// one, each day's stacks adding up to the day's cost exactly, and the tops the chart draws.

import { describe, expect, it } from "vitest";
import type { AccountUsage } from "../../../../../src/admin/ui/api/types.js";
import { cumulative, MAX_STACKS, stacksOf } from "../../../../../src/admin/ui/views/account/stacked-usage.js";

const figures = { requests: 1, prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0, errors: 0 };
const model = (name: string | null, cost: number, other = false) => ({
  model: name,
  other,
  requests: 1,
  prompt_tokens: 0,
  cached_tokens: 0,
  completion_tokens: 0,
  cost,
});

function usage(keys: [string, number][], days: [string, number][][]): AccountUsage {
  return {
    account_id: "acme",
    timezone: "UTC",
    from: "2026-11-20",
    to: "2026-11-21",
    today: "2026-11-21",
    month: "2026-11",
    totals: {
      today: { ...figures, cost: 0 },
      month: { ...figures, cost: 0 },
      range: { ...figures, cost: 0 },
    },
    keys: keys.map(([id, cost]) => ({ key_id: id, name: `name ${id}`, ...figures, cost })),
    models: [model("llama", 0.3), model(null, 0.2), model(null, 0.1, true)],
    days: days.map((shares, d) => ({
      date: `2026-11-2${d}`,
      ...figures,
      cost: 0,
      by_key: shares.map(([id, cost]) => ({ key_id: id, name: `name ${id}`, ...figures, cost })),
      by_model: [model("llama", 0.1), model(null, 0.000001), model(null, 0.1, true)],
    })),
  };
}

describe("stacksOf", () => {
  it("gives each key of the range a stack with its cost on every day, zero where it spent nothing", () => {
    const stacks = stacksOf(
      usage(
        [
          ["a", 0.3],
          ["b", 0.1],
        ],
        [
          [
            ["a", 0.1],
            ["b", 0.1],
          ],
          [["a", 0.2]],
        ],
      ),
      "key",
    );
    expect(stacks.map((s) => [s.id, s.name, s.kind, s.costs])).toEqual([
      ["a", "name a", "key", [0.1, 0.2]],
      ["b", "name b", "key", [0.1, 0]],
    ]);
  });

  it("puts the keys beyond the first five into one stack, summed exactly", () => {
    const keys: [string, number][] = Array.from({ length: 8 }, (_, i) => [`k${i}`, 1 - i / 10]);
    const day: [string, number][] = keys.map(([id]) => [id, 0.100001]);
    const stacks = stacksOf(usage(keys, [day]), "key");
    expect(stacks).toHaveLength(MAX_STACKS);
    expect(stacks.at(-1)).toMatchObject({ id: "rest", kind: "rest", costs: [0.300003] });
  });

  it("names models, requests without one and the other models apart", () => {
    const stacks = stacksOf(usage([], [[]]), "model");
    expect(stacks.map((s) => [s.name, s.kind, s.costs])).toEqual([
      ["llama", "model", [0.1]],
      [null, "none", [0.000001]],
      [null, "other", [0.1]],
    ]);
  });
});

describe("cumulative", () => {
  it("gives each stack's top: its cost plus those below, to the micro-ruble", () => {
    const stacks = stacksOf(
      usage(
        [
          ["a", 0.3],
          ["b", 0.1],
        ],
        [
          [
            ["a", 0.1],
            ["b", 0.2],
          ],
        ],
      ),
      "key",
    );
    expect(cumulative(stacks)).toEqual([[0.1], [0.3]]);
  });
});
