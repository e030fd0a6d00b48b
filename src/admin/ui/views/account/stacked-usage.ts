// An account's daily spend split into stacks, by key or by model: the biggest spenders of the range each get a
// stack, the rest one "others" stack. Pure data, for the chart (usage-chart.tsx) and its unit test. Costs stay
// as the API gives them (rubles exact to the micro-ruble); the stacks are summed in micro-rubles so that a day's
// stacks add up to its total exactly.

import { microsFromJson } from "../../../../core/money.js";
import type { AccountUsage } from "../../api/types.js";

export type GroupBy = "key" | "model";

/** One stack: its label's parts and its cost (rubles) on each day of the range. */
export interface Stack {
  id: string;
  /** A key's name, a model's name, or null for "no model", "other models" or "the rest". */
  name: string | null;
  kind: "key" | "model" | "none" | "other" | "rest";
  costs: number[];
}

/** Stacks shown at most; the rest go into one. */
export const MAX_STACKS = 6;

function groupsOf(usage: AccountUsage, by: GroupBy): Pick<Stack, "id" | "name" | "kind">[] {
  if (by === "key") return usage.keys.map((k) => ({ id: k.key_id, name: k.name, kind: "key" as const }));
  return usage.models.map((m) => ({
    id: m.other ? "mx:" : `m:${m.model ?? ""}`,
    name: m.model,
    kind: m.other ? ("other" as const) : m.model === null ? ("none" as const) : ("model" as const),
  }));
}

function dayShares(day: AccountUsage["days"][number], by: GroupBy): Map<string, number> {
  if (by === "key") return new Map(day.by_key.map((k) => [k.key_id, microsFromJson(k.cost)]));
  return new Map(day.by_model.map((m) => [m.other ? "mx:" : `m:${m.model ?? ""}`, microsFromJson(m.cost)]));
}

/** The range's stacks, biggest first (the API lists keys and models by spend). */
export function stacksOf(usage: AccountUsage, by: GroupBy): Stack[] {
  const groups = groupsOf(usage, by);
  const shown = groups.length > MAX_STACKS ? groups.slice(0, MAX_STACKS - 1) : groups;
  const rest = groups.length > MAX_STACKS ? groups.slice(MAX_STACKS - 1) : [];
  const stacks: Stack[] = shown.map((group) => ({ ...group, costs: [] }));
  const restStack: Stack | null =
    rest.length > 0 ? { id: "rest", name: null, kind: "rest", costs: [] } : null;
  const restIds = new Set(rest.map((group) => group.id));
  for (const day of usage.days) {
    const shares = dayShares(day, by);
    for (const stack of stacks) stack.costs.push((shares.get(stack.id) ?? 0) / 1_000_000);
    if (restStack) {
      let sum = 0;
      for (const [id, cost] of shares) if (restIds.has(id)) sum += cost;
      restStack.costs.push(sum / 1_000_000);
    }
  }
  return restStack ? [...stacks, restStack] : stacks;
}

/**
 * The stacks' tops per day (rubles): the first stack's costs, then each plus the ones before, so that bars
 * drawn from the last (tallest) to the first show every stack on top of the ones before it.
 */
export function cumulative(stacks: readonly Stack[]): number[][] {
  const tops: number[][] = [];
  // Summed in µ₽, each stack's rubles read once; only the tops go back to rubles.
  let below: number[] = [];
  for (const stack of stacks) {
    const top = stack.costs.map((cost, d) => microsFromJson(cost) + (below[d] ?? 0));
    tops.push(top.map((micros) => micros / 1_000_000));
    below = top;
  }
  return tops;
}
