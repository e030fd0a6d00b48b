// The layers of src/, and the rooms inside src/store/, are enforced by dependency-cruiser (.dependency-cruiser.cjs,
// run by npm run lint) and drawn in docs/development.md#layers and #inside-store: each table there must be the
// rows the rules enforce, and every folder and file directly in src/ (in src/store/) must be in one of them.

import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url);
const config = createRequire(import.meta.url)(new URL(".dependency-cruiser.cjs", ROOT).pathname) as {
  forbidden: { name: string; from: { path: string }; to: { pathNot?: string | string[] } }[];
};

/** A rule's path pattern back to its room: "^src/store/" → "store", "^src/gateway\\.ts$" → "gateway.ts". */
const roomOf = (pattern: string, under: string) =>
  pattern
    .replace(new RegExp(`^\\^${under}`), "")
    .replace(/\/$/, "")
    .replace(/\\\./g, ".")
    .replace(/\$$/, "");

/** The rows the rules named "<prefix>: <room>" enforce, lowest first: rooms that may import the same rooms share a row. */
function enforcedRows(prefix: string, under: string): string[][] {
  const allowed = new Map<string, string[]>();
  for (const rule of config.forbidden) {
    const room = new RegExp(`^${prefix}: (\\S+)$`).exec(rule.name)?.[1];
    if (room === undefined) continue;
    const below = [rule.to.pathNot ?? []]
      .flat()
      .map((pattern) => roomOf(pattern, under))
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

/** The rows of the table in the section of docs/development.md that opens with `heading`, lowest first. */
function documentedRows(heading: string): string[][] {
  const page = readFileSync(new URL("docs/development.md", ROOT), "utf8");
  const start = page.indexOf(heading);
  const end = page.indexOf("\n#", start + heading.length);
  const section = page.slice(start, end === -1 ? undefined : end);
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
    const enforced = enforcedRows("layers", "src/");
    expect(enforced.length).toBeGreaterThan(5);
    expect(documentedRows("## Layers")).toEqual(enforced);
  });

  it("hold every folder and file directly in src/", () => {
    const rooms = enforcedRows("layers", "src/").flat();
    const entries = readdirSync(new URL("src/", ROOT)).filter((name) => !name.endsWith(".d.ts"));
    expect(entries.filter((name) => !rooms.includes(name))).toEqual([]);
  });
});

describe("the rooms of src/store/", () => {
  it("are documented in docs/development.md exactly as .dependency-cruiser.cjs enforces them", () => {
    const enforced = enforcedRows("store", "src/store/");
    expect(enforced.length).toBeGreaterThan(3);
    expect(documentedRows("### Inside `store/`")).toEqual(enforced);
  });

  it("hold every folder and file directly in src/store/ but its Lua scripts", () => {
    const rooms = enforcedRows("store", "src/store/").flat();
    const entries = readdirSync(new URL("src/store/", ROOT)).filter((name) => name !== "lua");
    expect(entries.filter((name) => !rooms.includes(name))).toEqual([]);
  });
});
