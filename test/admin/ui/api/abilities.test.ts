// The menus follow GET /me's actions, the server's own permission table: an action is allowed over every
// account, or in one account through a membership; the start page is where the role leads.

import { describe, expect, it } from "vitest";
import { can, homeOf, isPerson } from "../../../../src/admin/ui/api/abilities.js";
import type { Me } from "../../../../src/admin/ui/api/types.js";
import { allowedActions } from "../../../../src/identity/permissions.js";

function me(fields: Partial<Me>): Me {
  return {
    role: "account",
    account_id: null,
    timezone: "UTC",
    credential: "session",
    user: { id: "usr_a", name: "Anna", email: "anna@example.com" },
    signed_in_with: { via: "password", provider: null },
    linked_providers: [],
    operator_role: null,
    memberships: [],
    actions: { global: [], every_account: [], accounts: {} },
    csrf_token: "csrf",
    session: null,
    ...fields,
  };
}

const viewerOfAcme = me({
  memberships: [{ account_id: "acme", account_name: "Acme", role: "viewer" }],
  actions: { global: [], every_account: [], accounts: { acme: allowedActions("account", ["viewer"]) } },
});

describe("what the credential may do", () => {
  it("allows an account's action only in the accounts whose role allows it", () => {
    expect(can(viewerOfAcme, "keys.read", "acme")).toBe(true);
    expect(can(viewerOfAcme, "keys.write", "acme")).toBe(false);
    expect(can(viewerOfAcme, "keys.read", "other")).toBe(false);
    expect(can(viewerOfAcme, "members.read", "acme")).toBe(false);
    expect(can(viewerOfAcme, "overview.read")).toBe(false);
  });

  it("allows an operator role's actions in every account, and reads only for operator-viewer", () => {
    const viewer = me({
      operator_role: "operator-viewer",
      actions: {
        global: allowedActions("global", ["operator-viewer"]),
        every_account: allowedActions("account", ["operator-viewer"]),
        accounts: {},
      },
    });
    expect(can(viewer, "overview.read")).toBe(true);
    expect(can(viewer, "members.read", "any")).toBe(true);
    expect(can(viewer, "account.topup", "any")).toBe(false);
    expect(can(viewer, "keys.write", "any")).toBe(false);
    expect(can(viewer, "users.write")).toBe(false);
  });
});

describe("the start page", () => {
  it("is every account for an operator role, the first account of a member, none without a role", () => {
    expect(homeOf(me({ actions: { global: ["overview.read"], every_account: [], accounts: {} } }))).toEqual({
      name: "operator",
    });
    expect(homeOf(viewerOfAcme)).toEqual({ name: "account", accountId: "acme" });
    expect(homeOf(me({}))).toEqual({ name: "home" });
    expect(homeOf(me({ credential: "account-token", user: null, account_id: "legacy" }))).toEqual({
      name: "account",
      accountId: "legacy",
    });
  });

  it("knows a person from a token", () => {
    expect(isPerson(viewerOfAcme)).toBe(true);
    expect(isPerson(me({ credential: "api-token" }))).toBe(false);
  });
});
