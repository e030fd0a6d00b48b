// The permission table itself, pinned to what the roles are meant to be (the words): an operator may
// do everything; an operator-viewer may read everything; an owner everything of their account but top-ups;
// a member reads keys, usage, audit and events and works on keys; a viewer reads usage, keys and audit. The
// routes' side — every route of the OpenAPI document for every role — is test/e2e/permissions.test.ts.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ACCOUNT_ROLES, OPERATOR_ROLES, type Role } from "../../src/core/roles.js";
import { ACTIONS, type Action, allowedActions, allows, PERMISSIONS } from "../../src/identity/permissions.js";

/** What each role may do, written out by hand from the issue: the table must say exactly this. */
const MEANT: Record<Role, Action[]> = {
  operator: ACTIONS.filter((a) => PERMISSIONS[a].scope === "account" || PERMISSIONS[a].scope === "global"),
  "operator-viewer": [
    "account.read",
    "audit.read",
    "audit.read-all",
    "keys.read",
    "usage.read",
    "overview.read",
    "events.read",
    "alerts.read",
    "operator-alerts.read",
    "members.read",
    "users.read",
    "scim.read",
  ],
  owner: [
    "account.read",
    "audit.read",
    "keys.read",
    "keys.write",
    "usage.read",
    "events.read",
    "alerts.read",
    "alerts.write",
    "members.read",
    "members.write",
  ],
  member: ["account.read", "audit.read", "keys.read", "keys.write", "usage.read", "events.read"],
  viewer: ["account.read", "audit.read", "keys.read", "usage.read"],
};

describe("the permission table", () => {
  it("gives each role exactly the actions it is meant to have", () => {
    for (const [role, meant] of Object.entries(MEANT) as [Role, Action[]][]) {
      const held = ACTIONS.filter((action) => {
        const { scope } = PERMISSIONS[action];
        return (scope === "account" || scope === "global") && allows(action, [role]);
      });
      expect(held.sort(), role).toEqual([...meant].sort());
    }
  });

  it("lets operator-viewer take every read and no write, and account roles nothing over every account", () => {
    for (const action of ACTIONS) {
      const { kind, scope } = PERMISSIONS[action];
      if (scope !== "account" && scope !== "global") continue;
      expect(allows(action, ["operator-viewer"]), action).toBe(kind === "read");
      if (scope === "global")
        for (const role of ["owner", "member", "viewer"] as const) expect(allows(action, [role])).toBe(false);
    }
  });

  it("keeps top-ups and account creation to operators", () => {
    expect(PERMISSIONS["account.topup"].roles).toEqual(["operator"]);
    expect(PERMISSIONS["accounts.create"].roles).toEqual(["operator"]);
  });

  it("needs no role for the caller's own actions or for signing in, and adds up several roles held", () => {
    for (const action of ["public", "me", "me.manage"] as const) expect(allows(action, [])).toBe(true);
    expect(allows("members.write", ["viewer"])).toBe(false);
    expect(allows("members.write", ["viewer", "owner"])).toBe(true);
    expect(allowedActions("account", ["operator-viewer", "member"])).toContain("keys.write");
    expect(allowedActions("global", ["member"])).toEqual([]);
  });
});

describe("docs/sign-in.md's permission table", () => {
  it("says exactly what the table in the code says", () => {
    const page = readFileSync(new URL("../../docs/sign-in.md", import.meta.url), "utf8");
    const section = page.slice(page.indexOf("\n## Permissions\n"), page.indexOf("\n## Signing in\n"));
    const roles: Role[] = [...OPERATOR_ROLES, ...ACCOUNT_ROLES];
    const documented = Object.fromEntries(
      [...section.matchAll(/^\| `([a-z.-]+)` \|(.*)\|[^|]*\|$/gm)].map(([, action, cells]) => [
        action,
        (cells as string)
          .split("|")
          .map((cell, i) => (cell.trim() === "yes" ? roles[i] : null))
          .filter((role) => role !== null),
      ]),
    );
    const actual = Object.fromEntries(
      ACTIONS.filter((a) => PERMISSIONS[a].scope === "account" || PERMISSIONS[a].scope === "global").map(
        (a) => [a, roles.filter((role) => (PERMISSIONS[a].roles as readonly Role[]).includes(role))],
      ),
    );
    expect(documented).toEqual(actual);
  });
});
