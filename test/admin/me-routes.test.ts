// The caller's own routes over the real admin listener: who the credential is (the admin token, an account's
// token, a person's session with its CSRF token and session times), and — for a person signed in, never a
// token — their sessions (listed with the current one marked, one ended, all ended), their password (the
// current one checked, other sessions ended and audited) and their API tokens (made with a role they hold,
// listed, revoked).

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import { ACTOR } from "../helpers/actor.js";
import { type AdminApi, startAdminApi } from "../helpers/admin-api.js";
import { testIdentity } from "../helpers/identity.js";

const PASSWORD = "correct horse battery staple";
let api: AdminApi;
let identity: Identity;
let userId: string;
beforeEach(async () => {
  api = await startAdminApi();
  // The same people and sessions as the listener's, in the same Redis.
  identity = testIdentity(api.store);
  userId = (await identity.users.create({ email: "ann@example.com", name: "Ann", password: PASSWORD }, ACTOR))
    .id;
  await identity.grants.grant("acme", userId, "direct", "member", ACTOR);
});
afterEach(() => api.close());

/** A session of Ann's, and a `call` made with it as a browser on the dashboard would. */
async function session() {
  const { id, session } = await identity.sessions.start(
    userId,
    { via: "password" },
    { userAgent: "Firefox", address: "10.0.0.1" },
  );
  const headers = { cookie: `tg_session=${id}`, "x-csrf-token": session.csrfToken, origin: api.url };
  const call = (method: string, path: string, body?: unknown) =>
    api.call(method, path, { as: null, headers, ...(body !== undefined && { body }) });
  return { id, session, call };
}
const auditOf = async () =>
  (await api.store.stores.audit.listUser(userId, 20)).map((e) => [e.action, e.details]);

describe("GET /admin/v1/me", () => {
  it("describes the admin token as an operator with no person and no session", async () => {
    const { status, body } = await api.call("GET", "/admin/v1/me");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      role: "admin",
      account_id: null,
      credential: "admin-token",
      user: null,
      operator_role: "operator",
      csrf_token: null,
      session: null,
    });
  });

  it("describes an account's token as its owner", async () => {
    const { body } = await api.call("GET", "/admin/v1/me", { as: api.acmeToken });
    expect(body).toMatchObject({
      role: "account",
      account_id: "acme",
      credential: "account-token",
      memberships: [{ account_id: "acme", account_name: "Acme", role: "owner" }],
    });
  });

  it("describes a person's session: their memberships, how they signed in, the CSRF token and the session's times", async () => {
    const { session: live, call } = await session();
    const { body } = await call("GET", "/admin/v1/me");
    expect(body).toMatchObject({
      role: "account",
      account_id: "acme",
      credential: "session",
      user: { id: userId, email: "ann@example.com" },
      signed_in_with: { via: "password" },
      memberships: [{ account_id: "acme", role: "member" }],
      csrf_token: live.csrfToken,
      session: {
        created_at: new Date(live.createdAt).toISOString(),
        expires_at: new Date(live.createdAt + identity.settings.absoluteMs).toISOString(),
        idle_timeout_seconds: identity.settings.idleMs / 1000,
      },
    });
  });
});

describe("the person's own sessions", () => {
  it("are listed with the current one marked, and one ended by its id, audited", async () => {
    const other = await session();
    const { call } = await session();
    const { body } = await call("GET", "/admin/v1/me/sessions");
    expect(body.sessions).toHaveLength(2);
    expect(body.sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    const otherId = body.sessions.find((s: { current: boolean }) => !s.current).id;
    expect((await call("DELETE", `/admin/v1/me/sessions/${otherId}`)).body).toEqual({ revoked: 1 });
    expect((await other.call("GET", "/admin/v1/me")).status).toBe(401);
    expect((await auditOf())[0]).toEqual(["user.sessions_revoked", { reason: "revoked", count: 1 }]);
  });

  it("are all ended by signing out everywhere, this one included", async () => {
    await session();
    const { call } = await session();
    expect((await call("POST", "/admin/v1/me/sessions/revoke-all")).body).toEqual({ revoked: 2 });
    expect((await call("GET", "/admin/v1/me")).status).toBe(401);
    expect((await auditOf())[0]).toEqual(["user.sessions_revoked", { reason: "everywhere", count: 2 }]);
  });

  it("are a signed-in person's only: a token is refused with 403", async () => {
    for (const path of ["/admin/v1/me/sessions", "/admin/v1/me/tokens"]) {
      const { status, body } = await api.call("GET", path);
      expect(status).toBe(403);
      expect(JSON.stringify(body)).toContain("not a token");
    }
  });
});

describe("POST /admin/v1/me/password", () => {
  it("changes the password when the current one is right, ending the other sessions, audited", async () => {
    const other = await session();
    const { call } = await session();
    const { status, body } = await call("POST", "/admin/v1/me/password", {
      current_password: PASSWORD,
      new_password: "a brand new passphrase",
    });
    expect([status, body]).toEqual([200, { changed: true }]);
    expect((await other.call("GET", "/admin/v1/me")).status).toBe(401);
    expect((await call("GET", "/admin/v1/me")).status).toBe(200);
    await expect(
      identity.passwords.signIn("ann@example.com", "a brand new passphrase", "10.0.0.2"),
    ).resolves.toBeTruthy();
    expect((await auditOf())[0]).toEqual(["user.sessions_revoked", { reason: "password_changed", count: 1 }]);
  });

  it("refuses a wrong current password with 401, and a weak new one, changing nothing", async () => {
    const { call } = await session();
    const wrong = await call("POST", "/admin/v1/me/password", {
      current_password: "not my password",
      new_password: "a brand new passphrase",
    });
    expect(wrong.status).toBe(401);
    const weak = await call("POST", "/admin/v1/me/password", {
      current_password: PASSWORD,
      new_password: "short",
    });
    expect(weak.status).toBe(400);
    await expect(identity.passwords.signIn("ann@example.com", PASSWORD, "10.0.0.2")).resolves.toBeTruthy();
  });
});

describe("the person's own API tokens", () => {
  it("are made with a role they hold, shown once, listed without their value, and revoked", async () => {
    const { call } = await session();
    const made = await call("POST", "/admin/v1/me/tokens", {
      name: "ci",
      role: "viewer",
      account_id: "acme",
    });
    expect(made.status).toBe(201);
    expect(made.body.token).toMatch(/\S{20,}/);
    const listed = await call("GET", "/admin/v1/me/tokens");
    expect(listed.body.tokens).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(made.body.token);
    expect((await api.call("GET", "/admin/v1/me", { as: made.body.token })).body.credential).toBe(
      "api-token",
    );
    expect((await call("DELETE", `/admin/v1/me/tokens/${made.body.id}`)).body).toEqual({ revoked: 1 });
    expect((await api.call("GET", "/admin/v1/me", { as: made.body.token })).status).toBe(401);
  });

  it("refuse a role above the person's", async () => {
    const { call } = await session();
    const { status } = await call("POST", "/admin/v1/me/tokens", {
      name: "ci",
      role: "owner",
      account_id: "acme",
    });
    expect(status).toBe(403);
  });
});
