// The layers of src/ are enforced by dependency-cruiser (.dependency-cruiser.cjs, run by npm run lint) and
// drawn in docs/development.md#layers: the table there must be the rows the rules enforce, and every folder
// and file directly in src/ must be in one of them.

import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url);
const config = createRequire(import.meta.url)(new URL(".dependency-cruiser.cjs", ROOT).pathname) as {
  forbidden: { name: string; from: { path: string }; to: { pathNot?: string | string[] } }[];
};

/** A rule's path pattern back to its room: "^src/store/" → "store", "^src/gateway\\.ts$" → "gateway.ts". */
const roomOf = (pattern: string) =>
  pattern
    .replace(/^\^src\//, "")
    .replace(/\/$/, "")
    .replace(/\\\./g, ".")
    .replace(/\$$/, "");

/** The rows the rules enforce, lowest first: rooms that may import the same rooms share a row. */
function enforcedRows(): string[][] {
  const allowed = new Map<string, string[]>();
  for (const rule of config.forbidden) {
    const room = /^layers: (\S+)$/.exec(rule.name)?.[1];
    if (room === undefined) continue;
    const below = [rule.to.pathNot ?? []]
      .flat()
      .map(roomOf)
      .filter((other) => other !== room);
    allowed.set(room, below.sort());
  }
  const rows = new Map<string, { below: number; rooms: string[] }>();
  for (const [room, below] of allowed) {
    const row = rows.get(below.join(" ")) ?? { below: below.length, rooms: [] };
    row.rooms.push(room);
    rows.set(below.join(" "), row);
  }
  return [...rows.values()].sort((a, b) => a.below - b.below).map(({ rooms }) => rooms.sort());
}

/** The rows of the table in docs/development.md#layers, lowest first. */
function documentedRows(): string[][] {
  const page = readFileSync(new URL("docs/development.md", ROOT), "utf8");
  const section = page.slice(page.indexOf("## Layers"), page.indexOf("### The request's path"));
  return [...section.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)]
    .map(([, level, rooms]) => ({
      level: Number(level),
      rooms: [...(rooms as string).matchAll(/`([^`]+)`/g)].map((m) => m[1] as string).sort(),
    }))
    .sort((a, b) => a.level - b.level)
    .map(({ rooms }) => rooms);
}

describe("the layers", () => {
  it("are documented in docs/development.md exactly as .dependency-cruiser.cjs enforces them", () => {
    const enforced = enforcedRows();
    expect(enforced.length).toBeGreaterThan(5);
    expect(documentedRows()).toEqual(enforced);
  });

  it("hold every folder and file directly in src/", () => {
    const rooms = enforcedRows().flat();
    const entries = readdirSync(new URL("src/", ROOT)).filter((name) => !name.endsWith(".d.ts"));
    expect(entries.filter((name) => !rooms.includes(name))).toEqual([]);
  });
});
