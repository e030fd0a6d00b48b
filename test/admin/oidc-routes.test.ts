// The identity providers' redirect routes over the real admin listener, for what they decide themselves (the
// whole sign-in through a real OpenID provider is test/e2e/sign-in-oidc*.test.ts): a provider not configured is
// a 404; any other failure sends the browser to the dashboard's sign-in page with the error's code and the
// provider in the fragment, never a JSON page; the callback forgets the sign-in cookie whatever comes of it;
// linking a provider is for a signed-in person only.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ACTOR } from "../helpers/actor.js";
import { type AdminApi, startAdminApi } from "../helpers/admin-api.js";
import { testIdentity } from "../helpers/identity.js";

let api: AdminApi;
beforeEach(async () => {
  api = await startAdminApi({
    identity: {
      // Nothing listens on port 9: the provider cannot be reached.
      signIn: { providers: [{ id: "corp", name: "Corp", issuer: "http://127.0.0.1:9/", clientId: "gw" }] },
    },
  });
});
afterEach(() => api.close());

const signInPage = (location: string | null) => {
  const url = new URL(location ?? "");
  expect(url.origin).toBe(api.url);
  return Object.fromEntries(new URLSearchParams(url.hash.replace(/^#\/sign-in\?/, "")));
};
const navigate = (path: string) => fetch(`${api.url}${path}`, { redirect: "manual" });

describe("GET /auth/oidc/{providerId}/start", () => {
  it("answers 404 for a provider not configured", async () => {
    expect((await navigate("/auth/oidc/nowhere/start")).status).toBe(404);
  });

  it("sends the browser to the sign-in page with the error when the provider cannot be reached", async () => {
    const res = await navigate("/auth/oidc/corp/start?return_to=%2F");
    expect(res.status).toBe(302);
    expect(signInPage(res.headers.get("location"))).toEqual({
      error: "identity_provider_unavailable",
      provider: "corp",
    });
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});

describe("GET /auth/oidc/{providerId}/callback", () => {
  it("answers 404 for a provider not configured", async () => {
    expect((await navigate("/auth/oidc/nowhere/callback?state=x&code=y")).status).toBe(404);
  });

  it("refuses a sign-in it never started, forgetting the sign-in cookie, on the sign-in page", async () => {
    const res = await fetch(`${api.url}/auth/oidc/corp/callback?state=made-up&code=y`, {
      redirect: "manual",
      headers: { cookie: "tg_sign_in=some-binding" },
    });
    expect(res.status).toBe(302);
    expect(signInPage(res.headers.get("location"))).toEqual({ error: "session_expired", provider: "corp" });
    expect(res.headers.get("set-cookie")).toMatch(/^tg_sign_in=;.*Max-Age=0/i);
  });
});

describe("POST /auth/oidc/{providerId}/link", () => {
  it("is refused to a token, and answers a signed-in person with the provider's error while it is away", async () => {
    const refused = await api.call("POST", "/auth/oidc/corp/link", { body: {} });
    expect(refused.status).toBe(403);
    const identity = testIdentity(api.store);
    const ann = await identity.users.create({ email: "ann@example.com" }, ACTOR);
    const { id, session } = await identity.sessions.start(
      ann.id,
      { via: "password" },
      { userAgent: "", address: "" },
    );
    const linked = await api.call("POST", "/auth/oidc/corp/link", {
      as: null,
      body: { return_to: "/#/me" },
      headers: { cookie: `tg_session=${id}`, "x-csrf-token": session.csrfToken, origin: api.url },
    });
    expect(linked.status).toBe(503);
    expect(JSON.stringify(linked.body)).toContain("identity_provider_unavailable");
  });
});
