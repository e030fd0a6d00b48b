// Sign-in events over real HTTP: every sign-in and failed sign-in (unknown user, wrong password, locked,
// disabled), lockout and unlock, password change, set-password link, invitation accepted, API token made
// and revoked, session ended writes one log line at its declared level and counts one in
// tunnel_gateway_identity_events_total{event, outcome}; a known person's failures are in their audit log.
// None of the passwords, tokens, session ids or link tokens the test used appears in any line.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IdentityEventName } from "../../src/core/identity-events.js";
import type { Identity } from "../../src/identity/identity.js";
import { sha256 } from "../../src/identity/secrets.js";
import { ACTOR } from "../helpers/actor.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { testIdentity } from "../helpers/identity.js";

const PASSWORD = "events-password-long-enough-1";
const NEW_PASSWORD = "events-password-changed-2";
const ADMIN_TOKEN = "events-admin-token-0123456789";
let t: TestGateway;
let identity: Identity;
let admin: string;
/** Every secret the test handled, to be looked for in the log lines. */
const secrets = new Set<string>([PASSWORD, NEW_PASSWORD, ADMIN_TOKEN]);

beforeAll(async () => {
  t = await startTestGateway({
    config: {
      admin: { token: ADMIN_TOKEN },
      // The tests' tries come from addresses of their own (X-Forwarded-For), so that one test's failures do
      // not lock the next one's address.
      security: { trustedProxies: ["127.0.0.1/32"] },
      signIn: { local: { enabled: true }, attempts: { maxFailures: 3, firstLockSeconds: 60 } },
    } as never,
  });
  identity = testIdentity(t.store);
  admin = t.gateway.adminUrl as string;
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
});
afterAll(async () => {
  await t?.close();
});

interface Session {
  cookie: string;
  csrf: string;
}

async function person(email: string, role: "owner" | null = "owner") {
  return identity.users.create(
    {
      email,
      name: email.split("@")[0],
      password: PASSWORD,
      ...(role && { account: { accountId: "acme", role } }),
    },
    ACTOR,
  );
}

let addresses = 0;

async function signIn(email: string, password = PASSWORD, address = `10.0.${++addresses}.1`) {
  const res = await fetch(`${admin}/auth/password`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: admin, "x-forwarded-for": address },
    body: JSON.stringify({ email, password }),
  });
  const cookie = (res.headers.getSetCookie()[0] ?? "").split(";")[0] as string;
  const body = await json(res);
  if (res.status === 200) secrets.add(cookie.split("=")[1] as string).add(body.csrf_token);
  return { status: res.status, session: { cookie, csrf: body.csrf_token } as Session, body };
}

async function call(session: Session | "admin", method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { origin: admin };
  if (session === "admin") headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  else Object.assign(headers, { cookie: session.cookie, "x-csrf-token": session.csrf });
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${admin}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await json(res) };
}

async function counts(): Promise<Map<string, number>> {
  const text = await (await fetch(`${t.gateway.metricsUrl}/metrics`)).text();
  const found = new Map<string, number>();
  for (const [, event, outcome, value] of text.matchAll(
    /^tunnel_gateway_identity_events_total\{event="([^"]+)",outcome="([^"]+)"\} (\d+)$/gm,
  ))
    found.set(`${event} ${outcome}`, Number(value));
  return found;
}

/**
 * Runs `act` and checks that it wrote exactly these events' lines (at their levels) and counted each once
 * more; returns the lines.
 */
async function expectEvents(
  expected: [event: IdentityEventName, outcome: string, level: "info" | "warn"][],
  act: () => Promise<unknown>,
) {
  const before = await counts();
  const from = t.logs.length;
  await act();
  const lines = t.logs.slice(from).filter((line) => line.event !== undefined);
  expect(lines.map((line) => [line.event, line.outcome, line.level === 30 ? "info" : "warn"])).toEqual(
    expected,
  );
  const after = await counts();
  for (const [event, outcome] of expected) {
    const key = `${event} ${outcome}`;
    const times = expected.filter(([e, o]) => `${e} ${o}` === key).length;
    expect(after.get(key), key).toBe((before.get(key) ?? 0) + times);
  }
  return lines;
}

describe("sign-in events", () => {
  it("declare every event and outcome as a series at 0 from the start", async () => {
    const all = await counts();
    expect(all.get("sign_in.password wrong_password")).toBeGreaterThanOrEqual(0);
    expect(all.get("scim.user.create success")).toBe(0);
    expect(all.get("scim.group.members refused")).toBe(0);
    expect(all.get("provider.check refused")).toBe(0);
  });

  it("log and count a sign-in, and its failures by reason: unknown user, wrong password, disabled", async () => {
    const ann = await person("ann@example.com");
    const [ok] = await expectEvents([["sign_in.password", "success", "info"]], () =>
      signIn("ann@example.com", PASSWORD, "192.0.2.77"),
    );
    expect(ok).toMatchObject({ msg: "sign-in with a password", user: ann.id, address: "192.0.2.77" });
    const [unknown] = await expectEvents([["sign_in.password", "unknown_user", "warn"]], () =>
      signIn("nobody@example.com", "whatever-password-1"),
    );
    // An unknown e-mail is logged as a short hash: a password typed into the e-mail field stays out.
    expect(unknown).toMatchObject({ email_sha256: sha256("nobody@example.com").slice(0, 16) });
    expect(JSON.stringify(unknown)).not.toContain("nobody@example.com");
    const [wrong] = await expectEvents([["sign_in.password", "wrong_password", "warn"]], () =>
      signIn("ann@example.com", "not-the-password-1"),
    );
    expect(wrong).toMatchObject({ user: ann.id });
    await identity.users.disable(ann.id, ACTOR);
    await expectEvents([["sign_in.password", "user_disabled", "warn"]], () => signIn("ann@example.com"));
    const audit = await identity.users.find(ann.id).then(() => t.store.stores.audit.listUser(ann.id, 3));
    expect(audit.map((entry) => [entry.action, entry.actor, entry.details.reason])).toEqual([
      ["user.sign_in_failed", "anonymous", "user_disabled"],
      ["user.disable", "cli", undefined],
      ["user.sign_in_failed", "anonymous", "wrong_password"],
    ]);
  });

  it("log and count a lockout by e-mail and by address, tries refused while locked, and the unlock", async () => {
    const bob = await person("bob@example.com");
    await signIn("bob@example.com", "wrong-password-one", "203.0.113.7");
    await signIn("bob@example.com", "wrong-password-two", "203.0.113.7");
    await expectEvents(
      [
        ["sign_in.password", "wrong_password", "warn"],
        ["lockout", "email", "warn"],
      ],
      () => signIn("bob@example.com", "wrong-password-three", "203.0.113.8"),
    );
    await expectEvents([["sign_in.password", "locked", "warn"]], () => signIn("bob@example.com"));
    const unlocked = await call("admin", "POST", `/admin/v1/users/${bob.id}/unlock`);
    expect(unlocked.body).toEqual({ unlocked: true });
    await expectEvents([["sign_in.password", "success", "info"]], () => signIn("bob@example.com"));
    const actions = (await t.store.stores.audit.listUser(bob.id, 10)).map((entry) => entry.action);
    expect(actions.slice(0, 3)).toEqual(["user.sign_in", "user.unlock", "user.lockout"]);

    // Three unknown e-mails from one address lock the address.
    await signIn("x1@example.com", "whatever-password-1", "198.51.100.9");
    await signIn("x2@example.com", "whatever-password-1", "198.51.100.9");
    await expectEvents(
      [
        ["sign_in.password", "unknown_user", "warn"],
        ["lockout", "address", "warn"],
      ],
      () => signIn("x3@example.com", "whatever-password-1", "198.51.100.9"),
    );
  });

  it("log and count an unlock by signing in once a lock has passed", async () => {
    await person("cleo@example.com");
    for (const n of [1, 2, 3]) await signIn("cleo@example.com", `wrong-password-${n}`, `192.0.2.${n}`);
    t.clock.advance(61_000);
    await expectEvents(
      [
        ["unlock", "signed_in", "info"],
        ["sign_in.password", "success", "info"],
      ],
      () => signIn("cleo@example.com", PASSWORD, "192.0.2.10"),
    );
  });

  it("log and count password changes, set-password links, sessions ended and API tokens", async () => {
    const dora = await person("dora@example.com");
    const { session } = await signIn("dora@example.com");
    const other = (await signIn("dora@example.com")).session;
    await expectEvents([["password.change", "wrong_password", "warn"]], () =>
      call(session, "POST", "/admin/v1/me/password", {
        current_password: "not-it-at-all",
        new_password: NEW_PASSWORD,
      }),
    );
    await expectEvents([["password.change", "weak_password", "info"]], () =>
      call(session, "POST", "/admin/v1/me/password", { current_password: PASSWORD, new_password: "short" }),
    );
    await expectEvents(
      [
        ["password.change", "success", "info"],
        ["session.revoke", "password_changed", "info"],
      ],
      () =>
        call(session, "POST", "/admin/v1/me/password", {
          current_password: PASSWORD,
          new_password: NEW_PASSWORD,
        }),
    );
    expect((await call(other, "GET", "/admin/v1/me")).status).toBe(401);

    const made = await expectEvents([["token.create", "success", "info"]], async () => {
      const created = await call(session, "POST", "/admin/v1/me/tokens", {
        name: "ci",
        role: "owner",
        account_id: "acme",
      });
      secrets.add(created.body.token);
      return created;
    });
    expect(made[0]).toMatchObject({ user: dora.id, account: "acme", detail: "owner" });
    await expectEvents([["token.create", "refused", "warn"]], () =>
      call(session, "POST", "/admin/v1/me/tokens", { name: "root", role: "operator" }),
    );
    const [token] = (await call(session, "GET", "/admin/v1/me/tokens")).body.tokens;
    await expectEvents([["token.revoke", "by_owner", "info"]], () =>
      call(session, "DELETE", `/admin/v1/me/tokens/${token.id}`),
    );
    const second = await call(session, "POST", "/admin/v1/me/tokens", {
      name: "ci2",
      role: "viewer",
      account_id: "acme",
    });
    secrets.add(second.body.token);
    await expectEvents([["token.revoke", "by_operator", "info"]], () =>
      call("admin", "DELETE", `/admin/v1/users/${dora.id}/tokens/${second.body.id}`),
    );

    const third = (await signIn("dora@example.com", NEW_PASSWORD)).session;
    const listed = (await call(session, "GET", "/admin/v1/me/sessions")).body.sessions;
    const theirs = listed.find((s: { current: boolean }) => !s.current);
    await expectEvents([["session.revoke", "revoked", "info"]], () =>
      call(session, "DELETE", `/admin/v1/me/sessions/${theirs.id}`),
    );
    expect((await call(third, "GET", "/admin/v1/me")).status).toBe(401);
    await signIn("dora@example.com", NEW_PASSWORD);
    const [everywhere] = await expectEvents([["session.revoke", "everywhere", "info"]], () =>
      call(session, "POST", "/admin/v1/me/sessions/revoke-all"),
    );
    expect(everywhere).toMatchObject({ count: 2 });
    const fresh = (await signIn("dora@example.com", NEW_PASSWORD)).session;
    await expectEvents([["session.revoke", "signed_out", "info"]], () =>
      call(fresh, "POST", "/auth/sign-out"),
    );
    await signIn("dora@example.com", NEW_PASSWORD);
    await expectEvents([["session.revoke", "user_disabled", "info"]], () =>
      call("admin", "POST", `/admin/v1/users/${dora.id}/disable`),
    );

    const eve = await person("eve@example.com", null);
    const link = await identity.passwords.passwordLink(eve.id, admin);
    const linkToken = link.split("/#/set-password/")[1] as string;
    secrets.add(linkToken);
    await expectEvents([["password.link", "weak_password", "info"]], () =>
      fetch(`${admin}/auth/password/set`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: admin },
        body: JSON.stringify({ token: linkToken, password: "password1234" }),
      }),
    );
    await expectEvents(
      [
        ["password.link", "success", "info"],
        ["sign_in.password", "success", "info"],
      ],
      () =>
        fetch(`${admin}/auth/password/set`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: admin },
          body: JSON.stringify({ token: linkToken, password: NEW_PASSWORD }),
        }),
    );
    await expectEvents([["password.link", "invalid_link", "warn"]], () =>
      fetch(`${admin}/auth/password/set`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: admin },
        body: JSON.stringify({ token: linkToken, password: NEW_PASSWORD }),
      }),
    );
  });

  it("log and count invitations accepted and refused", async () => {
    await person("owner@example.com");
    const { url } = await identity.invitations.create(
      "acme",
      { email: "new@example.com", role: "member" },
      ACTOR,
      admin,
    );
    const token = url.split("/#/invite/")[1] as string;
    secrets.add(token);
    const accept = (body: unknown) =>
      fetch(`${admin}/auth/invitations/accept`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: admin },
        body: JSON.stringify(body),
      });
    await expectEvents([["invitation.accept", "weak_password", "info"]], () =>
      accept({ token, password: "short" }),
    );
    await expectEvents(
      [
        ["invitation.accept", "success", "info"],
        ["sign_in.password", "success", "info"],
      ],
      () => accept({ token, password: NEW_PASSWORD }),
    );
    await expectEvents([["invitation.accept", "invalid_link", "warn"]], () =>
      accept({ token, password: NEW_PASSWORD }),
    );
    const again = await identity.invitations.create(
      "acme",
      { email: "owner@example.com", role: "viewer" },
      ACTOR,
      admin,
    );
    const taken = again.url.split("/#/invite/")[1] as string;
    secrets.add(taken);
    await expectEvents([["invitation.accept", "user_exists", "info"]], () =>
      accept({ token: taken, password: NEW_PASSWORD }),
    );
  });

  it("never put a password, a token, a session id, a CSRF token or a link's token in a line", () => {
    expect(secrets.size).toBeGreaterThan(10);
    const text = t.logs.map((line) => JSON.stringify(line)).join("\n");
    for (const secret of secrets) {
      expect(text, "a secret in the log").not.toContain(secret);
      expect(text, "a secret's hash in the log").not.toContain(sha256(secret));
    }
  });
});
