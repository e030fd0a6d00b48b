// People through the admin API over real HTTP, as the dashboard's pages will drive it: an owner invites a
// person, who accepts and is signed in; the owner changes their role and removes them, each taking effect on
// the member's next request; every change is in the audit log with the person who made it and how they
// signed in (entries written before people could sign in read as before); an operator lists users, disables
// one (their sessions end at once) and revokes their tokens; a person manages their own sessions, tokens and
// password.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import { sha256 } from "../../src/identity/secrets.js";
import { ACTOR } from "../helpers/actor.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { testIdentity } from "../helpers/identity.js";

const PASSWORD = "a-password-long-enough-1";
let t: TestGateway;
let identity: Identity;
let admin: string;

interface Session {
  cookie: string;
  csrf: string;
}

beforeAll(async () => {
  t = await startTestGateway({ config: { signIn: { local: { enabled: true } } } as never });
  identity = testIdentity(t.store);
  admin = t.gateway.adminUrl as string;
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
});
afterAll(async () => {
  await t?.close();
});

async function person(email: string, role: "owner" | null, operatorRole: "operator" | null = null) {
  const user = await identity.users.create({ email, name: email.split("@")[0], operatorRole }, ACTOR);
  await identity.users.setPassword(user.id, PASSWORD, ACTOR);
  if (role) await identity.grants.grant("acme", user.id, "direct", role, ACTOR);
  return user;
}

async function signIn(email: string): Promise<Session> {
  const res = await fetch(`${admin}/auth/password`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: admin },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  const cookie = (res.headers.getSetCookie()[0] ?? "").split(";")[0] as string;
  return { cookie, csrf: (await json(res)).csrf_token };
}

async function call(session: Session, method: string, path: string, body?: unknown) {
  const res = await fetch(`${admin}${path}`, {
    method,
    headers: {
      cookie: session.cookie,
      ...(method !== "GET" && { origin: admin, "x-csrf-token": session.csrf }),
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await json(res) };
}

describe("an account's people", () => {
  it("are invited, accept, change role and are removed by an owner, each change effective on the next request", async () => {
    await person("olga@example.com", "owner");
    const owner = await signIn("olga@example.com");
    const invited = await call(owner, "POST", "/admin/v1/accounts/acme/invitations", {
      email: "Newcomer@Example.com",
      role: "member",
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({
      email: "newcomer@example.com",
      role: "member",
      invited_by: expect.stringMatching(/^user:usr_/),
    });
    const token = (invited.body.url as string).split("/#/invite/")[1] as string;
    expect((await call(owner, "GET", "/admin/v1/accounts/acme/invitations")).body.invitations).toHaveLength(
      1,
    );

    const preview = await fetch(`${admin}/auth/invitations/preview`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: admin },
      body: JSON.stringify({ token }),
    });
    expect(await json(preview)).toMatchObject({
      account_id: "acme",
      account_name: "Acme",
      email: "newcomer@example.com",
      role: "member",
    });
    const accepted = await fetch(`${admin}/auth/invitations/accept`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: admin },
      body: JSON.stringify({ token, password: PASSWORD, name: "New Comer" }),
    });
    expect(accepted.status).toBe(200);
    const acceptedBody = await json(accepted);
    expect(acceptedBody).toMatchObject({
      created: true,
      account_id: "acme",
      role: "member",
      user: { name: "New Comer" },
    });
    const member: Session = {
      cookie: (accepted.headers.getSetCookie()[0] ?? "").split(";")[0] as string,
      csrf: acceptedBody.csrf_token,
    };
    const userId = acceptedBody.user.id as string;
    expect((await call(member, "POST", "/admin/v1/accounts/acme/keys", { name: "mine" })).status).toBe(201);
    expect((await call(owner, "GET", "/admin/v1/accounts/acme/invitations")).body.invitations).toEqual([]);

    const members = await call(owner, "GET", "/admin/v1/accounts/acme/members");
    expect(members.body.members.find((m: { user_id: string }) => m.user_id === userId)).toMatchObject({
      name: "New Comer",
      role: "member",
      grants: [{ source: "direct", role: "member" }],
    });
    expect((await call(member, "GET", "/admin/v1/accounts/acme/members")).status).toBe(403);

    expect(
      (await call(owner, "PATCH", `/admin/v1/accounts/acme/members/${userId}`, { role: "viewer" })).body.role,
    ).toBe("viewer");
    const refused = await call(member, "POST", "/admin/v1/accounts/acme/keys", { name: "another" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      "New Comer (viewer in account acme) may not create, change, rotate, disable, enable or revoke account acme's keys.",
    );
    expect((await call(member, "GET", "/admin/v1/accounts/acme/keys")).status).toBe(200);

    expect((await call(owner, "DELETE", `/admin/v1/accounts/acme/members/${userId}`)).body).toEqual({
      removed: true,
    });
    expect((await call(member, "GET", "/admin/v1/accounts/acme/keys")).status).toBe(403);
    expect((await call(member, "GET", "/admin/v1/me")).body.memberships).toEqual([]);
    expect((await call(owner, "DELETE", `/admin/v1/accounts/acme/members/${userId}`)).status).toBe(404);
  });

  it("are named in the audit log with how they signed in; entries from before read as they did", async () => {
    const { entries } = (await call(await signIn("olga@example.com"), "GET", "/admin/v1/accounts/acme/audit"))
      .body;
    const byAction = (action: string) => entries.find((e: { action: string }) => e.action === action);
    expect(byAction("key.create")).toMatchObject({
      actor: expect.stringMatching(/^user:usr_/),
      by: { name: "New Comer", via: "password" },
      details: { name: "mine" },
    });
    expect(byAction("invitation.accept").by).toMatchObject({ name: "New Comer", via: "password" });
    expect(byAction("member.remove").by).toMatchObject({ name: "olga", via: "password" });
    expect(byAction("invitation.create")).toMatchObject({
      by: { name: "olga" },
      details: { email: "newcomer@example.com", role: "member" },
    });
    const created = byAction("account.create");
    expect(created).toEqual({
      at: expect.any(String),
      actor: "cli",
      action: "account.create",
      account_id: "acme",
      details: expect.any(Object),
    });
  });
});

describe("an operator", () => {
  it("lists users, disables one — whose sessions end at once — and enables them again", async () => {
    await person("root@example.com", null, "operator");
    const operator = await signIn("root@example.com");
    const victim = await person("leaving@example.com", "owner");
    const theirs = await signIn("leaving@example.com");
    const listed = await call(operator, "GET", "/admin/v1/users");
    expect(listed.body.users.map((u: { email: string }) => u.email)).toContain("leaving@example.com");
    t.clock.advance(1);
    const disabled = await call(operator, "POST", `/admin/v1/users/${victim.id}/disable`);
    expect(disabled.body).toMatchObject({ status: "disabled" });
    expect((await call(theirs, "GET", "/admin/v1/me")).status).toBe(401);
    const signInAgain = await fetch(`${admin}/auth/password`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: admin },
      body: JSON.stringify({ email: "leaving@example.com", password: PASSWORD }),
    });
    expect(signInAgain.status).toBe(403);
    expect((await json(signInAgain)).error.code).toBe("user_disabled");
    t.clock.advance(1);
    await call(operator, "POST", `/admin/v1/users/${victim.id}/enable`);
    const detail = await call(operator, "GET", `/admin/v1/users/${victim.id}`);
    expect(detail.body).toMatchObject({
      status: "active",
      memberships: [{ account_id: "acme", role: "owner" }],
      sessions: 0,
    });
    const audit = await call(operator, "GET", "/admin/v1/users/audit?limit=3");
    expect(audit.body.entries).toMatchObject([
      { action: "user.enable", user_id: victim.id, by: { name: "root", via: "password" } },
      // The refused sign-in while disabled is in their log, made by nobody signed in.
      {
        action: "user.sign_in_failed",
        user_id: victim.id,
        actor: "anonymous",
        details: { reason: "user_disabled", address: "127.0.0.1" },
      },
      { action: "user.disable", user_id: victim.id, by: { name: "root", via: "password" } },
    ]);
  });
});

describe("a person's own", () => {
  it("sessions are listed and revoked, tokens made and revoked, password changed", async () => {
    await person("self@example.com", "owner");
    const here = await signIn("self@example.com");
    const there = await signIn("self@example.com");
    const { sessions } = (await call(here, "GET", "/admin/v1/me/sessions")).body;
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ via: "password", provider: null, address: "127.0.0.1" });
    const other = sessions.find((s: { current: boolean }) => !s.current);
    // The session's id in the API is an opaque handle: not the cookie's id, not its SHA-256 (the name of
    // the session in Redis), nowhere in Redis at all.
    const me = (await call(here, "GET", "/admin/v1/me")).body;
    const cookieId = here.cookie.split("=")[1] as string;
    expect(me.session.id).toBe(sessions.find((s: { current: boolean }) => s.current).id);
    expect(me.session.id).toMatch(/^ses_[0-9a-f]{32}$/);
    expect(me.session.id).not.toContain(sha256(cookieId).slice(0, 16));
    const redisKeys = (await t.store.allKeys()).join("\n");
    for (const s of sessions) expect(redisKeys).not.toContain(s.id.slice(4));
    expect(redisKeys).toContain(sha256(cookieId));
    const otherHash = sha256(there.cookie.split("=")[1] as string);
    const byHash = await call(here, "DELETE", `/admin/v1/me/sessions/${otherHash}`);
    expect(byHash.status).toBe(404);
    expect((await call(here, "DELETE", `/admin/v1/me/sessions/${other.id}`)).body).toEqual({ revoked: 1 });
    expect((await call(there, "GET", "/admin/v1/me")).status).toBe(401);

    const made = await call(here, "POST", "/admin/v1/me/tokens", {
      name: "ci",
      role: "member",
      account_id: "acme",
      days: 7,
    });
    expect(made.status).toBe(201);
    const keys = await fetch(`${admin}/admin/v1/accounts/acme/keys`, {
      headers: { authorization: `Bearer ${made.body.token}` },
    });
    expect(keys.status).toBe(200);
    const listed = (await call(here, "GET", "/admin/v1/me/tokens")).body.tokens;
    expect(listed).toEqual([
      expect.objectContaining({ name: "ci", role: "member", account_id: "acme", expired: false }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(made.body.token);
    await call(here, "DELETE", `/admin/v1/me/tokens/${made.body.id}`);
    expect(
      (await fetch(`${admin}/admin/v1/me`, { headers: { authorization: `Bearer ${made.body.token}` } }))
        .status,
    ).toBe(401);

    const wrong = await call(here, "POST", "/admin/v1/me/password", {
      current_password: "nope",
      new_password: "another-long-password-2",
    });
    expect(wrong.status).toBe(401);
    const changed = await call(here, "POST", "/admin/v1/me/password", {
      current_password: PASSWORD,
      new_password: "another-long-password-2",
    });
    expect(changed.body).toEqual({ changed: true });
    const signOut = await call(here, "POST", "/auth/sign-out");
    expect(signOut.body).toEqual({ signed_out: true });
    expect((await call(here, "GET", "/admin/v1/me")).status).toBe(401);
  });
});
