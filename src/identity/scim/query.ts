// A list request's query (RFC 7644 §3.4.2): the filter, parsed by scimmy and reduced to what we answer —
// `eq` comparisons joined by `and` on the attributes Okta and Entra ID look people and groups up by — and
// the page (startIndex, count), bounded, and which attributes to return. Anything else is refused with
// 400 invalidFilter naming what is supported, rather than answered wrong.

import SCIMMY from "scimmy";
import { LIST_SCHEMA, scimInvalid } from "./resources.js";

/** Longest filter accepted, and the most resources one page holds (ServiceProviderConfig's maxResults). */
export const MAX_FILTER_LENGTH = 1000;
export const MAX_PAGE_SIZE = 200;
const DEFAULT_PAGE_SIZE = 100;

export interface Condition {
  /** The attribute as we name it (one of the `supported` ones). */
  attribute: string;
  value: string;
}

export interface Page {
  startIndex: number;
  count: number;
}

/**
 * The conditions of a filter, all of which must hold; [] without a filter. `supported` lists the attribute
 * paths (case-insensitive, as SCIM's are) that may be compared.
 */
export function parseFilter(expression: string | undefined, supported: readonly string[]): Condition[] {
  if (expression === undefined || expression.trim() === "") return [];
  if (expression.length > MAX_FILTER_LENGTH)
    throw scimInvalid("invalidFilter", `A filter may be at most ${MAX_FILTER_LENGTH} characters long.`);
  const unsupported = () =>
    scimInvalid(
      "invalidFilter",
      `Unsupported filter ${JSON.stringify(expression)}: use eq on ${supported.join(", ")}, joined with and.`,
    );
  let parsed: unknown[];
  try {
    parsed = [...new SCIMMY.Types.Filter(expression)];
  } catch (error) {
    throw scimInvalid("invalidFilter", `The filter cannot be read: ${(error as Error).message}`);
  }
  if (parsed.length !== 1) throw unsupported();
  const conditions: Condition[] = [];
  const walk = (node: unknown, prefix: string) => {
    if (typeof node !== "object" || node === null) throw unsupported();
    for (const [key, value] of Object.entries(node)) {
      const path = `${prefix}${key}`;
      if (!Array.isArray(value)) {
        walk(value, `${path}.`);
        continue;
      }
      const attribute = supported.find((name) => name.toLowerCase() === path.toLowerCase());
      const [operator, operand] = value as unknown[];
      if (attribute === undefined || String(operator).toLowerCase() !== "eq" || value.length !== 2)
        throw unsupported();
      if (typeof operand !== "string" && typeof operand !== "number") throw unsupported();
      conditions.push({ attribute, value: String(operand) });
    }
  };
  walk(parsed[0], "");
  return conditions;
}

function whole(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  if (!/^-?\d{1,9}$/.test(value)) throw scimInvalid("invalidValue", `${name} must be a whole number.`);
  return Number(value);
}

/** The page asked for: startIndex below 1 reads as 1, count below 0 as 0 (RFC 7644 §3.4.2.4), at most 200. */
export function pageOf(query: URLSearchParams): Page {
  return {
    startIndex: Math.max(1, whole(query.get("startIndex") ?? undefined, "startIndex", 1)),
    count: Math.min(
      MAX_PAGE_SIZE,
      Math.max(0, whole(query.get("count") ?? undefined, "count", DEFAULT_PAGE_SIZE)),
    ),
  };
}

/** The items of `all` on the page asked for. */
export function pageItems<T>(all: readonly T[], page: Page): T[] {
  return all.slice(page.startIndex - 1, page.startIndex - 1 + page.count);
}

/** A ListResponse: one page's resources out of `totalResults`. */
export function listResponse(
  resources: readonly Record<string, unknown>[],
  totalResults: number,
  page: Page,
): Record<string, unknown> {
  return {
    schemas: [LIST_SCHEMA],
    totalResults,
    startIndex: page.startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/**
 * A resource with only the attributes asked for (`attributes`), or without those asked away
 * (`excludedAttributes`), top-level names compared case-insensitively; id and schemas always stay.
 */
export function project(resource: Record<string, unknown>, query: URLSearchParams): Record<string, unknown> {
  const names = (value: string | null) =>
    new Set(
      (value ?? "")
        .split(",")
        .map((name) => name.trim().split(".")[0]?.toLowerCase() ?? "")
        .filter((name) => name !== ""),
    );
  const only = names(query.get("attributes"));
  const without = names(query.get("excludedAttributes"));
  if (only.size === 0 && without.size === 0) return resource;
  return Object.fromEntries(
    Object.entries(resource).filter(([key]) => {
      const lower = key.toLowerCase();
      if (lower === "id" || lower === "schemas") return true;
      if (only.size > 0 && !only.has(lower)) return false;
      return !without.has(lower);
    }),
  );
}
