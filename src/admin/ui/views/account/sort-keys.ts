// Which keys the keys table shows and in what order: filtered by a search and a state, sorted by any
// column with ties broken newest first. Pure, for the unit tests.

import type { Key } from "../../api/types.js";

/** The table's sortable columns, in its order; the key's other facts are on its own page. */
export type Column = "name" | "state" | "budget" | "expires";

export const COLUMNS: Column[] = ["name", "state", "budget", "expires"];
const STATE_ORDER = { active: 0, rotating: 1, disabled: 2, expired: 3, revoked: 4 } as const;

/** The value a key is sorted by in a column; null (no budget, no expiry) sorts last either way. */
function sortValue(key: Key, column: Column): string | number | null {
  switch (column) {
    case "name":
      return key.name.toLowerCase();
    case "budget":
      // By the share of the first window spent, as the table shows it.
      return key.budgets[0] ? key.budgets[0].spent / key.budgets[0].amount : null;
    case "expires":
      return key.expires_at;
    case "state":
      return STATE_ORDER[key.state];
  }
}

function compare(x: string | number, y: string | number): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Newest first, then by id: the order before a column is chosen, and between equal values. */
function newer(a: Key, b: Key): number {
  return compare(b.created_at, a.created_at) || compare(a.id, b.id);
}

export function sortKeys(keys: readonly Key[], column: Column, ascending: boolean): Key[] {
  return [...keys].sort((a, b) => {
    const x = sortValue(a, column);
    const y = sortValue(b, column);
    if (x === null || y === null) return x === y ? newer(a, b) : x === null ? 1 : -1;
    const order = compare(x, y);
    return order === 0 ? newer(a, b) : ascending ? order : -order;
  });
}

export function newestFirst(keys: readonly Key[]): Key[] {
  return [...keys].sort(newer);
}

export type StateFilter = "all" | Key["state"];

export const STATE_FILTERS: StateFilter[] = ["all", "active", "disabled", "expired", "revoked", "rotating"];

/**
 * The keys whose name or id contains `search` (ignoring case and the spaces around it) and, unless `state`
 * is all, that are in that state.
 */
export function filterKeys(keys: readonly Key[], search: string, state: StateFilter): Key[] {
  const needle = search.trim().toLowerCase();
  return keys.filter(
    (key) =>
      (state === "all" || key.state === state) &&
      (needle === "" || key.name.toLowerCase().includes(needle) || key.id.toLowerCase().includes(needle)),
  );
}
