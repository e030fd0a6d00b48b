// How the keys table sorts: by any column, ties broken newest first. Pure, for the unit tests.

import type { Key } from "./types.js";

export type Column = "name" | "id" | "hint" | "budget" | "reset" | "expires" | "state" | "models" | "privacy";

export const COLUMNS: Column[] = [
  "name",
  "id",
  "hint",
  "budget",
  "reset",
  "expires",
  "state",
  "models",
  "privacy",
];
const STATE_ORDER = { active: 0, rotating: 1, disabled: 2, expired: 3, revoked: 4 } as const;

/** The value a key is sorted by in a column; null (no budget, no expiry) sorts last either way. */
function sortValue(key: Key, column: Column): string | number | null {
  switch (column) {
    case "name":
      return key.name.toLowerCase();
    case "id":
      return key.id;
    case "hint":
      return key.hint;
    case "budget":
      // By the share of the budget spent.
      return key.budget ? key.budget.spent / key.budget.initial : null;
    case "reset":
      return key.budget ? key.budget.reset_at : null;
    case "expires":
      return key.expires_at;
    case "state":
      return STATE_ORDER[key.state];
    case "models":
      return key.allowed_models === null ? null : key.allowed_models.join(", ").toLowerCase();
    case "privacy":
      return key.log_bodies ? 1 : 0;
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
