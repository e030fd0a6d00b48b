// The names kept for one minor version: the documented table is the list, each old name is listed once, and
// the list is empty by the version the names go away in — a release that reaches it fails here until they
// are removed. That each old name still answers is test/e2e/deprecated-names.test.ts.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  DEPRECATED_NAMES,
  deprecatedField,
  deprecationNotice,
  REMOVED_IN,
  SURFACES,
} from "../../src/core/deprecated-names.js";
import { version } from "../../src/core/version.js";

/** "0.1.0" → [0, 1, 0]. */
const parts = (text: string) => text.split(/[.-]/).slice(0, 3).map(Number);

describe("the deprecated names", () => {
  it("are the table of docs/decisions.md, row for row", () => {
    const page = readFileSync(new URL("../../docs/decisions.md", import.meta.url), "utf8");
    const section = page.split(/^## Deprecated names$/m)[1]?.split(/^## /m)[0] ?? "";
    const rows = section
      .split("\n")
      .filter((line) => line.startsWith("| "))
      .slice(2);
    expect(rows).toEqual(
      DEPRECATED_NAMES.map(({ surface, old, now }) => `| ${SURFACES[surface]} | \`${old}\` | \`${now}\` |`),
    );
    expect(section).toContain(`go away in ${REMOVED_IN}`);
  });

  it("name each old name once on its surface", () => {
    const names = DEPRECATED_NAMES.map(({ surface, old }) => `${surface} ${old}`);
    expect(new Set(names).size).toBe(names.length);
  });

  it("are gone by the version they go away in", () => {
    const [major, minor] = parts(version());
    const [goneMajor, goneMinor] = parts(REMOVED_IN);
    const before =
      (major as number) < (goneMajor as number) ||
      (major === goneMajor && (minor as number) < (goneMinor as number));
    expect(before || DEPRECATED_NAMES.length === 0, `version ${version()}: remove the deprecated names`).toBe(
      true,
    );
  });

  it("say what replaces each and when it goes, in the OpenAPI document and on the CLI's stderr", () => {
    expect(deprecatedField("alert_at")).toEqual({
      deprecated: true,
      description: `Deprecated: alert_at, the same value; goes away in ${REMOVED_IN}`,
    });
    expect(deprecationNotice("accounts budget set", "accounts budgets set")).toBe(
      `warning: \`accounts budget set\` is deprecated and goes away in ${REMOVED_IN}: use \`accounts budgets set\``,
    );
  });
});
