// docs/sign-in.md's table of sign-in events is core/identity-events.ts's declared list: every event once, each
// with exactly its declared outcomes, the ones logged at warn in italics.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  IDENTITY_EVENT_NAMES,
  IDENTITY_EVENTS,
  type IdentityEventName,
} from "../../src/core/identity-events.js";

const doc = readFileSync(new URL("../../docs/sign-in.md", import.meta.url), "utf8");
const section = doc.slice(doc.indexOf("## Sign-in events"), doc.indexOf("### Why a sign-in failed"));

/** Each row's events and its outcomes with their levels (a note in parentheses is not an outcome). */
const rows = [...section.matchAll(/^\| (`[\w.]+`(?:, `[\w.]+`)*) \| (.+?) \| .+ \|$/gm)].map((m) => ({
  events: [...(m[1] as string).matchAll(/`([\w.]+)`/g)].map((e) => e[1] as string),
  outcomes: [...(m[2] as string).replace(/\([^)]*\)/g, "").matchAll(/(\*?)`(\w+)`/g)].map(
    (o) => `${o[2]}:${o[1] === "*" ? "warn" : "info"}`,
  ),
}));

describe("docs/sign-in.md's sign-in events", () => {
  it("lists every declared identity event once", () => {
    expect(rows.flatMap((row) => row.events).sort()).toEqual([...IDENTITY_EVENT_NAMES].sort());
  });

  it("gives each event exactly its declared outcomes, at their declared levels", () => {
    for (const { events, outcomes } of rows)
      for (const event of events as IdentityEventName[]) {
        // An event not declared is named by the test above.
        const declared: Readonly<Record<string, string>> = IDENTITY_EVENTS[event]?.outcomes ?? {};
        expect({ event, outcomes: outcomes.sort() }).toEqual({
          event,
          outcomes: Object.entries(declared)
            .map(([outcome, level]) => `${outcome}:${level}`)
            .sort(),
        });
      }
  });
});
