// How the dashboard's keys table sorts: by any column either way, keys without a value (no budget, no
// expiry, every model) last either way, and ties — like the order before a column is chosen — newest first.

import { describe, expect, it } from "vitest";
import { COLUMNS, newestFirst, sortKeys } from "../../../src/admin/ui/sort-keys.js";
import type { Key } from "../../../src/admin/ui/types.js";

function key(id: string, fields: Partial<Key> = {}): Key {
  return {
    id,
    name: id,
    account_id: "acme",
    hint: "0000",
    created_at: "2026-11-01T00:00:00.000Z",
    expires_at: null,
    revoked_at: null,
    state: "active",
    grace_until: null,
    disabled_at: null,
    allowed_models: null,
    log_bodies: true,
    budget: null,
    limits: { rpm: null, tpm: null, max_parallel: null },
    alert_at: null,
    period: "month",
    currency: "RUB",
    ...fields,
  };
}

function budget(spent: number, initial: number, reset = "2026-12-01T00:00:00.000Z"): Key["budget"] {
  return { period: "month", initial, spent, remaining: initial - spent, reset_at: reset };
}

const ids = (keys: Key[]) => keys.map((k) => k.id);

describe("newestFirst", () => {
  it("orders by creation, newest first, then by id, without changing the list it was given", () => {
    const keys = [
      key("b", { created_at: "2026-11-02T00:00:00.000Z" }),
      key("c", { created_at: "2026-11-03T00:00:00.000Z" }),
      key("a", { created_at: "2026-11-02T00:00:00.000Z" }),
    ];
    expect(ids(newestFirst(keys))).toEqual(["c", "a", "b"]);
    expect(ids(keys)).toEqual(["b", "c", "a"]);
  });
});

describe("sortKeys", () => {
  it("sorts names without regard to case, either way", () => {
    const keys = [key("1", { name: "beta" }), key("2", { name: "Alpha" }), key("3", { name: "gamma" })];
    expect(ids(sortKeys(keys, "name", true))).toEqual(["2", "1", "3"]);
    expect(ids(sortKeys(keys, "name", false))).toEqual(["3", "1", "2"]);
  });

  it("breaks ties newest first whichever way the column goes", () => {
    const keys = [
      key("old", { name: "same", created_at: "2026-01-01T00:00:00.000Z" }),
      key("new", { name: "same", created_at: "2026-06-01T00:00:00.000Z" }),
    ];
    expect(ids(sortKeys(keys, "name", true))).toEqual(["new", "old"]);
    expect(ids(sortKeys(keys, "name", false))).toEqual(["new", "old"]);
  });

  it("puts keys without a budget, an expiry or a model list last, either way", () => {
    const keys = [
      key("none"),
      key("half", { budget: budget(5, 10), expires_at: "2027-01-01T00:00:00.000Z", allowed_models: ["b"] }),
      key("most", {
        budget: budget(9, 10),
        expires_at: "2026-12-01T00:00:00.000Z",
        allowed_models: ["A", "c"],
      }),
    ];
    expect(ids(sortKeys(keys, "budget", true))).toEqual(["half", "most", "none"]);
    expect(ids(sortKeys(keys, "budget", false))).toEqual(["most", "half", "none"]);
    expect(ids(sortKeys(keys, "expires", true))).toEqual(["most", "half", "none"]);
    expect(ids(sortKeys(keys, "expires", false))).toEqual(["half", "most", "none"]);
    expect(ids(sortKeys(keys, "models", true))).toEqual(["most", "half", "none"]);
    expect(ids(sortKeys(keys, "reset", false)).at(-1)).toBe("none");
  });

  it("sorts budgets by the share spent, not the amount", () => {
    const keys = [key("big", { budget: budget(50, 1000) }), key("small", { budget: budget(4, 5) })];
    expect(ids(sortKeys(keys, "budget", true))).toEqual(["big", "small"]);
  });

  it("sorts states active, expired, revoked, and keys whose bodies are never logged before the others", () => {
    const keys = [
      key("r", { state: "revoked" }),
      key("a"),
      key("e", { state: "expired", log_bodies: false }),
    ];
    expect(ids(sortKeys(keys, "state", true))).toEqual(["a", "e", "r"]);
    expect(ids(sortKeys(keys, "privacy", true))[0]).toBe("e");
    expect(ids(sortKeys(keys, "privacy", false)).at(-1)).toBe("e");
  });

  it("sorts by id and hint, and knows every column", () => {
    const keys = [key("key_b", { hint: "aaaa" }), key("key_a", { hint: "zzzz" })];
    expect(ids(sortKeys(keys, "id", true))).toEqual(["key_a", "key_b"]);
    expect(ids(sortKeys(keys, "hint", true))).toEqual(["key_b", "key_a"]);
    expect(COLUMNS).toEqual([
      "name",
      "id",
      "hint",
      "budget",
      "reset",
      "expires",
      "state",
      "models",
      "privacy",
    ]);
    for (const column of COLUMNS) expect(sortKeys(keys, column, true)).toHaveLength(2);
  });
});
