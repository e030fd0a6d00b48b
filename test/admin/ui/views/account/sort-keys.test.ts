// How the dashboard's keys table sorts: by any column either way, keys without a value (no budget, no
// expiry) last either way, and ties — like the order before a column is chosen — newest first; and which
// keys its search and state filter leave.

import { describe, expect, it } from "vitest";
import type { Key } from "../../../../../src/admin/ui/api/types.js";
import {
  COLUMNS,
  filterKeys,
  newestFirst,
  STATE_FILTERS,
  sortKeys,
} from "../../../../../src/admin/ui/views/account/sort-keys.js";
import { KEY_STATES } from "../../../../../src/services/key-schema.js";

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
    budgets: [],
    limits: { rpm: null, tpm: null, max_parallel: null },
    alert_at: null,
    period: "month",
    currency: "RUB",
    sharing: { priority: null, max_wait_ms: null },
    ...fields,
  };
}

function budgets(spent: number, amount: number, reset = "2026-12-01T00:00:00.000Z"): Key["budgets"] {
  return [{ period: "month", amount, spent, remaining: amount - spent, resets_at: reset }];
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

  it("puts keys without a budget or an expiry last, either way", () => {
    const keys = [
      key("none"),
      key("half", { budgets: budgets(5, 10), expires_at: "2027-01-01T00:00:00.000Z" }),
      key("most", { budgets: budgets(9, 10), expires_at: "2026-12-01T00:00:00.000Z" }),
    ];
    expect(ids(sortKeys(keys, "budget", true))).toEqual(["half", "most", "none"]);
    expect(ids(sortKeys(keys, "budget", false))).toEqual(["most", "half", "none"]);
    expect(ids(sortKeys(keys, "expires", true))).toEqual(["most", "half", "none"]);
    expect(ids(sortKeys(keys, "expires", false))).toEqual(["half", "most", "none"]);
  });

  it("sorts budgets by the share spent, not the amount", () => {
    const keys = [key("big", { budgets: budgets(50, 1000) }), key("small", { budgets: budgets(4, 5) })];
    expect(ids(sortKeys(keys, "budget", true))).toEqual(["big", "small"]);
  });

  it("sorts states from usable to final: active, rotating, disabled, expired, revoked", () => {
    const keys = [
      key("r", { state: "revoked" }),
      key("d", { state: "disabled" }),
      key("a"),
      key("e", { state: "expired" }),
      key("o", { state: "rotating" }),
    ];
    expect(ids(sortKeys(keys, "state", true))).toEqual(["a", "o", "d", "e", "r"]);
    expect(ids(sortKeys(keys, "state", false))).toEqual(["r", "e", "d", "o", "a"]);
  });

  it("knows the table's four sortable columns", () => {
    expect(COLUMNS).toEqual(["name", "state", "budget", "expires"]);
    const keys = [key("key_b"), key("key_a")];
    for (const column of COLUMNS) expect(sortKeys(keys, column, true)).toHaveLength(2);
  });
});

describe("filterKeys", () => {
  const keys = [
    key("key_prod01", { name: "Production backend" }),
    key("key_stage2", { name: "staging", state: "disabled" }),
    key("key_old003", { name: "old PROD", state: "revoked" }),
  ];

  it("finds a part of the name or the id, whatever its case, ignoring the spaces around it", () => {
    expect(ids(filterKeys(keys, "prod", "all"))).toEqual(["key_prod01", "key_old003"]);
    expect(ids(filterKeys(keys, "  BACKEND ", "all"))).toEqual(["key_prod01"]);
    expect(ids(filterKeys(keys, "STAGE2", "all"))).toEqual(["key_stage2"]);
    expect(ids(filterKeys(keys, "nothing like it", "all"))).toEqual([]);
  });

  it("leaves every key for an empty search and the state all, and only that state's keys otherwise", () => {
    expect(ids(filterKeys(keys, "", "all"))).toEqual(ids(keys));
    expect(ids(filterKeys(keys, "", "disabled"))).toEqual(["key_stage2"]);
    expect(ids(filterKeys(keys, "prod", "revoked"))).toEqual(["key_old003"]);
    expect(ids(filterKeys(keys, "", "rotating"))).toEqual([]);
  });

  it("offers all and every state a key can be in", () => {
    expect([...STATE_FILTERS].sort()).toEqual(["all", ...KEY_STATES].sort());
  });
});
