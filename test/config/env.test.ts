// The environment variables live in src/config/env.ts; the table in docs/configuration.md documents them. This
// keeps the two the same, as test/errors.test.ts does for the error table.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONFIG_FILE_VARIABLE, ENV_SETTINGS } from "../../src/config/env.js";

/** Variable → the setting its row names first (null when the row names no setting, as for the file's). */
function documentedTable(): Record<string, string | null> {
  const page = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
  const start = page.indexOf("\n## Environment variables\n");
  expect(start, "docs/configuration.md has an Environment variables section").toBeGreaterThan(-1);
  const end = page.indexOf("\n## ", start + 1);
  const section = page.slice(start, end === -1 ? undefined : end);
  const rows = [...section.matchAll(/^\|\s*`(TUNNEL_[A-Z_]+)`(.*?)\|\s*(?:`([a-zA-Z.]+)`)?/gm)];
  const table: Record<string, string | null> = {};
  for (const [, variable, rest, setting] of rows) {
    // One variable per row: a second one in the same cell would otherwise go unchecked.
    expect(rest, `the row of ${variable}`).not.toMatch(/TUNNEL_/);
    expect(table, `${variable} is documented twice`).not.toHaveProperty(variable as string);
    table[variable as string] = setting ?? null;
  }
  return table;
}

describe("the environment variables", () => {
  it("are documented in docs/configuration.md exactly as src/config/env.ts wires them", () => {
    const wired = Object.fromEntries([
      [CONFIG_FILE_VARIABLE, null],
      ...ENV_SETTINGS.map((setting) => [setting.variable, setting.path.join(".")]),
    ]);
    expect(documentedTable()).toEqual(wired);
  });
});
