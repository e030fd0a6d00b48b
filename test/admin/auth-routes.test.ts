// The admin API's sign-in routes (admin/auth-routes.ts, with the session they start and end:
// admin/sign-in-session.ts) through the real admin listener over HTTP: the ways to sign in and whether the
// browser's session is active, ended or none; password sign-in setting a new session cookie every time (one the
// browser already had ended first), refusals of a wrong password and a cross-site request; sign-out, which
// needs the session's CSRF token and has the browser forget the cookie.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ACTOR } from "../helpers/actor.js";
import { type AdminAnswer, type AdminApi, startAdminApi } from "../helpers/admin-api.js";
import { testIdentity } from "../helpers/identity.js";

const PASSWORD = "a-password-long-enough-1";

let api: AdminApi;
let origin: string;
beforeEach(async () => {
  api = await startAdminApi();
  origin = new URL(api.url).origin;
  const identity = testIdentity(api.store);
  const ann = await identity.users.create({ email: "ann@example.com", name: "Ann" }, ACTOR);
  await identity.users.setPassword(ann.id, PASSWORD, ACTOR);
});
afterEach(() => api.close());

/** The session cookie an answer sets, as `name=value`. */
const sessionCookie = (answer: AdminAnswer) =>
  (answer.headers.getSetCookie()[0] ?? "").split(";")[0] as string;

function signIn(password = PASSWORD, headers: Record<string, string> = {}) {
  return api.call("POST", "/auth/password", {
    as: null,
    body: { email: "ann@example.com", password },
    headers: { origin, ...headers },
  });
}

const me = (cookie: string) => api.call("GET", "/admin/v1/me", { as: null, headers: { cookie } });

describe("GET /auth/providers", () => {
  it("tells anyone the ways to sign in, and whether the browser's session is active, ended or none", async () => {
    const none = await api.call("GET", "/auth/providers", { as: null });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ session: "none", providers: [], password: true });
    const cookie = sessionCookie(await signIn());
    expect((await api.call("GET", "/auth/providers", { as: null, headers: { cookie } })).body.session).toBe(
      "active",
    );
    const [name] = cookie.split("=");
    const ended = await api.call("GET", "/auth/providers", { as: null, headers: { cookie: `${name}=gone` } });
    expect(ended.body.session).toBe("ended");
  });
});

describe("POST /auth/password", () => {
  it("signs in with a new session cookie and the CSRF token, the person shown", async () => {
    const signed = await signIn();
    expect(signed.status).toBe(200);
    expect(signed.body).toEqual({
      user: { id: expect.any(String), name: "Ann", email: "ann@example.com" },
      csrf_token: expect.any(String),
    });
    const cookie = sessionCookie(signed);
    expect(cookie).toMatch(/^tg_session=.+/);
    expect(signed.headers.getSetCookie()[0]).toMatch(/HttpOnly/i);
    expect((await me(cookie)).status).toBe(200);
  });

  it("ends the session the browser already had, so that an id planted before sign-in is worth nothing", async () => {
    const first = sessionCookie(await signIn());
    const second = await signIn(PASSWORD, { cookie: first });
    const fresh = sessionCookie(second);
    expect(fresh).not.toBe(first);
    expect((await me(first)).status).toBe(401);
    expect((await me(fresh)).status).toBe(200);
  });

  it("refuses a wrong password with 401 and sets no cookie", async () => {
    const wrong = await signIn("not-the-password-at-all");
    expect(wrong.status).toBe(401);
    expect(wrong.headers.getSetCookie()).toEqual([]);
  });

  it("refuses a request from another site with 403 csrf_refused, and a body without a password naming it", async () => {
    const cross = await signIn(PASSWORD, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    expect(cross.body.error.code).toBe("csrf_refused");
    const nameless = await api.call("POST", "/auth/password", {
      as: null,
      body: { email: "ann@example.com" },
      headers: { origin },
    });
    expect(nameless.status).toBe(400);
    expect(nameless.body.error.message).toMatch(/^Invalid body: password: /);
  });
});

describe("POST /auth/sign-out", () => {
  it("ends the session and has the browser forget its cookie, given the session's CSRF token", async () => {
    const signed = await signIn();
    const cookie = sessionCookie(signed);
    const refused = await api.call("POST", "/auth/sign-out", { as: null, headers: { cookie, origin } });
    expect(refused.status).toBe(403);
    expect((await me(cookie)).status).toBe(200);
    const out = await api.call("POST", "/auth/sign-out", {
      as: null,
      headers: { cookie, origin, "x-csrf-token": signed.body.csrf_token },
    });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ signed_out: true });
    expect(out.headers.getSetCookie()[0]).toMatch(/^tg_session=;.*Max-Age=0/i);
    expect((await me(cookie)).status).toBe(401);
  });
});
