// How the admin API shows people (admin/people-views.ts): a person's record, sessions, API tokens, members
// and invitations in the shapes of admin/people-schemas.ts — times as ISO-8601, grants as lists sorted by
// their source, a stored role that is none left out, a session's hash never shown, a token's expiry judged at
// the time asked — and what the permission table allows a principal in each of its accounts.

import { describe, expect, it } from "vitest";
import {
  actionsOf,
  grantList,
  invitationView,
  memberView,
  personView,
  sessionView,
  tokenView,
  userView,
} from "../../src/admin/people-views.js";
import { legacyAccount, legacyAdmin } from "../../src/identity/principal.js";
import type { ApiTokenRecord } from "../../src/store/people/api-token-store.js";
import type { InvitationRecord } from "../../src/store/people/invitation-store.js";
import type { SessionRecord } from "../../src/store/people/session-store.js";
import type { UserRecord } from "../../src/store/people/user-record.js";

const T = Date.parse("2026-11-21T10:00:00Z");

const ann: UserRecord = {
  id: "usr_ann",
  name: "Ann",
  email: "ann@example.com",
  status: "active",
  operatorGrants: { "group:Admins": "operator-viewer", direct: "operator", legacy: "nonsense" },
  passwordHash: null,
  providers: ["corp"],
  createdAt: T,
  lastSignInAt: null,
};

describe("grantList", () => {
  it("lists grants by their source, sorted", () => {
    expect(grantList({ "group:b": "viewer", direct: "owner", "group:a": "member" })).toEqual([
      { source: "direct", role: "owner" },
      { source: "group:a", role: "member" },
      { source: "group:b", role: "viewer" },
    ]);
    expect(grantList({})).toEqual([]);
  });
});

describe("userView and personView", () => {
  it("show the person's highest operator role, their grants, whether they have a password, times in ISO-8601", () => {
    expect(userView(ann)).toEqual({
      id: "usr_ann",
      name: "Ann",
      email: "ann@example.com",
      status: "active",
      operator_role: "operator",
      operator_grants: [
        { source: "direct", role: "operator" },
        { source: "group:Admins", role: "operator-viewer" },
        { source: "legacy", role: "nonsense" },
      ],
      providers: ["corp"],
      password: false,
      created_at: "2026-11-21T10:00:00.000Z",
      last_sign_in_at: null,
    });
    const signedIn = userView({ ...ann, operatorGrants: {}, passwordHash: "x", lastSignInAt: T + 1000 });
    expect(signedIn).toMatchObject({
      operator_role: null,
      password: true,
      last_sign_in_at: "2026-11-21T10:00:01.000Z",
    });
    expect(personView(ann)).toEqual({ id: "usr_ann", name: "Ann", email: "ann@example.com" });
  });
});

describe("sessionView", () => {
  const session: SessionRecord = {
    hash: "h".repeat(64),
    userId: "usr_ann",
    via: "oidc",
    provider: "corp",
    createdAt: T,
    lastSeenAt: T + 60_000,
    userAgent: "Firefox",
    address: "192.0.2.1",
  };

  it("names a session by a handle, never its hash, and marks the one the call came with", () => {
    const view = sessionView(session, session.hash);
    expect(view).toEqual({
      id: expect.stringMatching(/^ses_[0-9a-f]{32}$/),
      created_at: "2026-11-21T10:00:00.000Z",
      last_seen_at: "2026-11-21T10:01:00.000Z",
      via: "oidc",
      provider: "corp",
      user_agent: "Firefox",
      address: "192.0.2.1",
      current: true,
    });
    expect(JSON.stringify(view)).not.toContain(session.hash);
    expect(sessionView(session, null).current).toBe(false);
    expect(sessionView({ ...session, hash: "g".repeat(64) }, session.hash).id).not.toBe(view.id);
  });
});

describe("tokenView", () => {
  const token: ApiTokenRecord = {
    id: "tok_1",
    userId: "usr_ann",
    name: "ci",
    role: "viewer",
    accountId: "acme",
    hash: "a".repeat(64),
    hint: "wxyz",
    createdAt: T,
    expiresAt: T + 1000,
    lastUsedAt: null,
  };

  it("shows the token by its hint, expired from its expiry instant on", () => {
    expect(tokenView(token, T)).toEqual({
      id: "tok_1",
      name: "ci",
      role: "viewer",
      account_id: "acme",
      hint: "wxyz",
      created_at: "2026-11-21T10:00:00.000Z",
      expires_at: "2026-11-21T10:00:01.000Z",
      last_used_at: null,
      expired: false,
    });
    expect(tokenView(token, T + 999).expired).toBe(false);
    expect(tokenView(token, T + 1000).expired).toBe(true);
    expect(tokenView({ ...token, lastUsedAt: T }, T).last_used_at).toBe("2026-11-21T10:00:00.000Z");
    expect(JSON.stringify(tokenView(token, T))).not.toContain(token.hash);
  });
});

describe("memberView and invitationView", () => {
  it("show a member's person, role and grants, and an invitation with its times", () => {
    expect(
      memberView({ user: ann, role: "owner", grants: { direct: "owner", "group:x": "viewer" } }),
    ).toEqual({
      user_id: "usr_ann",
      name: "Ann",
      email: "ann@example.com",
      status: "active",
      role: "owner",
      grants: [
        { source: "direct", role: "owner" },
        { source: "group:x", role: "viewer" },
      ],
    });
    const invitation: InvitationRecord = {
      id: "inv_1",
      hash: "b".repeat(64),
      accountId: "acme",
      email: "b@example.com",
      role: "member",
      createdAt: T,
      expiresAt: T + 86_400_000,
      invitedBy: "admin",
    };
    expect(invitationView(invitation)).toEqual({
      id: "inv_1",
      email: "b@example.com",
      role: "member",
      created_at: "2026-11-21T10:00:00.000Z",
      expires_at: "2026-11-22T10:00:00.000Z",
      invited_by: "admin",
    });
  });
});

describe("actionsOf", () => {
  it("allows an operator global actions and every account's, and a member only its accounts' by its role", async () => {
    const operator = await actionsOf(legacyAdmin(), new Map());
    expect(operator.global).toContain("accounts.create");
    expect(operator.every_account).toContain("account.topup");
    expect(operator.accounts).toEqual({});

    const member = await actionsOf(legacyAccount("acme"), new Map([["acme", "viewer"]]));
    expect(member.global).toEqual([]);
    expect(member.every_account).toEqual([]);
    expect(member.accounts.acme).toContain("account.read");
    expect(member.accounts.acme).not.toContain("keys.write");
    expect(member.accounts.acme).not.toContain("account.topup");
  });
});
