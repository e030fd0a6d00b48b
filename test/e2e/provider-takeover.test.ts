// No way around the identity provider, tried as an attacker would, against a real OpenID provider: a leaked
// invitation to an e-mail the provider speaks for cannot make a password user (nor be accepted by a password
// session), only by signing in through the provider; a password user and a provider identity with the same
// e-mail are never linked silently — the provider's sign-in is refused saying what to do — and are linked
// with proof: the person signed in with their password asks for the link and comes back through the
// provider in the same session, or an operator allows it (once, for a while). A provider whose
// requireForDomains is off lets its domains' invitations be accepted with a password, as before.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import { ACTOR } from "../helpers/actor.js";
import { Browser } from "../helpers/browser.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { freePort } from "../helpers/http.js";
import { testIdentity } from "../helpers/identity.js";
import {
  gatewayClient,
  providerSettings,
  startIdentityProvider,
  type TestIdentityProvider,
} from "../helpers/oidc-provider.js";
import { redisSnapshot } from "../helpers/redis-snapshot.js";

const SECRET = "takeover-client-secret-0123456789";
const PASSWORD = "takeover-password-long-enough";
const ADMIN_TOKEN = "takeover-admin-token-0123456789";
let idp: TestIdentityProvider;
let t: TestGateway;
let identity: Identity;
let admin: string;

beforeAll(async () => {
  const port = await freePort();
  admin = `http://127.0.0.1:${port}`;
  idp = await startIdentityProvider({
    clients: [gatewayClient(admin, SECRET, ["corp", "partner"])],
  });
  const provider = (id: string, extra: object) =>
    providerSettings(
      idp,
      { id, name: id === "corp" ? "Corporate login" : "Partner login", secretEnv: "IDP_SECRET" },
      extra,
    );
  t = await startTestGateway({
    env: { IDP_SECRET: SECRET },
    config: {
      admin: { port, token: ADMIN_TOKEN },
      signIn: {
        local: { enabled: true },
        providers: [
          provider("corp", {
            rules: [{ emailDomains: ["corp.example"], account: "acme", role: "viewer" }],
            domains: ["corp-mail.example"],
          }),
          provider("partner", { domains: ["partner.example"], requireForDomains: false }),
        ],
      },
    } as never,
  });
  identity = testIdentity(t.store);
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
});

afterAll(async () => {
  await t?.close();
  await idp?.close();
});

function post(path: string, body: unknown, browser?: Browser, csrf?: string) {
  const init = {
    method: "POST",
    headers: {
      "content-type": "application/json",
      origin: admin,
      ...(csrf && { "x-csrf-token": csrf }),
    },
    body: JSON.stringify(body),
  };
  return browser
    ? browser.request(`${admin}${path}`, init).then(({ res }) => res)
    : fetch(`${admin}${path}`, init);
}

async function invite(email: string): Promise<string> {
  const { url } = await identity.invitations.create("acme", { email, role: "member" }, ACTOR, admin);
  return url.split("/#/invite/")[1] as string;
}

/** Goes through the provider's login as `login` from where `start` sent the browser; returns the final hop. */
async function throughProvider(browser: Browser, startUrl: string, login: string) {
  const start = await browser.navigate(startUrl);
  const form = start.hops.at(-1) as { url: string };
  await start.res.text();
  const done = await browser.submit(form.url, { login });
  const callback = done.hops.find((hop) => hop.url.includes("/callback"));
  return new URL(callback?.location as string);
}

async function passwordSession(email: string): Promise<{ browser: Browser; csrf: string }> {
  const browser = new Browser();
  const res = await post("/auth/password", { email, password: PASSWORD }, browser);
  expect(res.status).toBe(200);
  return { browser, csrf: (await json(res)).csrf_token };
}

describe("an invitation to an e-mail the provider speaks for", () => {
  it("cannot be turned into a password user by whoever holds the link", async () => {
    const token = await invite("victim@corp.example");
    const preview = await json(await post("/auth/invitations/preview", { token }));
    expect(preview.provider).toEqual({
      id: "corp",
      name: "Corporate login",
      start_url: "/auth/oidc/corp/start",
    });
    const before = await redisSnapshot(t.store.redis, t.store.prefix);
    const res = await post("/auth/invitations/accept", {
      token,
      password: "attacker-password-long",
      name: "x",
    });
    expect(res.status).toBe(403);
    const body = await json(res);
    expect(body.error).toMatchObject({ code: "provider_required", provider: "corp" });
    expect(body.error.message).toContain("sign in with Corporate login");
    expect(await redisSnapshot(t.store.redis, t.store.prefix)).toEqual(before);
    expect(await t.store.stores.users.byEmail("victim@corp.example")).toBeNull();
  });

  it("covers the provider's own domains too, not only its rules'", async () => {
    const token = await invite("someone@corp-mail.example");
    const res = await post("/auth/invitations/accept", { token, password: "attacker-password-long" });
    expect((await json(res)).error.code).toBe("provider_required");
  });

  it("is not accepted by a password session of that e-mail, only by one through the provider", async () => {
    await identity.users.create({ email: "legacy@corp.example", name: "Legacy", password: PASSWORD }, ACTOR);
    const token = await invite("legacy@corp.example");
    const { browser, csrf } = await passwordSession("legacy@corp.example");
    const refused = await post("/auth/invitations/accept", { token }, browser, csrf);
    expect((await json(refused)).error.code).toBe("provider_required");

    idp.setPerson("real", { email: "real@corp.example", email_verified: true, name: "Real Person" });
    const own = await invite("real@corp.example");
    const signedIn = new Browser();
    const back = await throughProvider(signedIn, `${admin}/auth/oidc/corp/start?return_to=%2F`, "real");
    expect(back.href).toBe(`${admin}/`);
    const me = await json((await signedIn.request(`${admin}/admin/v1/me`)).res);
    const accepted = await post("/auth/invitations/accept", { token: own }, signedIn, me.csrf_token);
    expect(accepted.status).toBe(200);
    expect(await json(accepted)).toMatchObject({ created: false, role: "member" });
  });

  it("of a provider with requireForDomains off is accepted with a password, as before", async () => {
    const token = await invite("guest@partner.example");
    const preview = await json(await post("/auth/invitations/preview", { token }));
    expect(preview.provider).toBeNull();
    const res = await post("/auth/invitations/accept", { token, password: "guest-password-long-enough" });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ created: true });
  });
});

describe("a password user and a provider identity with the same e-mail", () => {
  it("are not linked without proof: the provider's sign-in is refused, saying what to do", async () => {
    const pat = await identity.users.create(
      { email: "pat@corp.example", name: "Pat", password: PASSWORD },
      ACTOR,
    );
    idp.setPerson("pat-at-idp", { email: "pat@corp.example", email_verified: true, name: "Pat" });
    const before = await redisSnapshot(t.store.redis, t.store.prefix);
    const back = await throughProvider(new Browser(), `${admin}/auth/oidc/corp/start`, "pat-at-idp");
    expect(back.hash).toBe("#/sign-in?error=provider_link_required&provider=corp");
    expect(await t.store.stores.users.bySubject("corp", "pat-at-idp")).toBeNull();
    expect((await t.store.stores.users.get(pat.id))?.providers).toEqual([]);
    expect(await t.store.stores.users.accountGrants("acme", pat.id)).toEqual({});
    // Nothing of the person changed; only the refusal's trace (no session, no link, no grant).
    const after = await redisSnapshot(t.store.redis, t.store.prefix);
    const changed = Object.keys(after).filter(
      (key) => JSON.stringify(after[key]) !== JSON.stringify(before[key]),
    );
    expect(changed.filter((key) => !key.includes("oidc-state:"))).toEqual([]);
    expect(
      t.logs.filter((line) => line.event === "sign_in.oidc" && line.user === pat.id).map((l) => l.outcome),
    ).toEqual(["link_required"]);
  });

  it("are linked when the person, signed in with their password, comes back through the provider in that session", async () => {
    const pat = await t.store.stores.users.byEmail("pat@corp.example");
    const { browser, csrf } = await passwordSession("pat@corp.example");
    const started = await post("/auth/oidc/corp/link", { return_to: "/#/me" }, browser, csrf);
    expect(started.status).toBe(200);
    const back = await throughProvider(browser, (await json(started)).url, "pat-at-idp");
    expect(back.hash).toBe("#/me");
    expect((await t.store.stores.users.bySubject("corp", "pat-at-idp"))?.id).toBe(pat?.id);
    const [entry] = await t.store.stores.audit
      .listUser(pat?.id as string, 5)
      .then((entries) => entries.filter((e) => e.action === "user.provider_link"));
    expect(entry).toMatchObject({ details: { provider: "corp", how: "by_person" } });
    // From now on the provider alone signs Pat in, with the roles its rules give.
    const fresh = new Browser();
    await throughProvider(fresh, `${admin}/auth/oidc/corp/start`, "pat-at-idp");
    const me = await json((await fresh.request(`${admin}/admin/v1/me`)).res);
    expect(me.user.id).toBe(pat?.id);
    expect(me.memberships).toEqual([{ account_id: "acme", account_name: "Acme", role: "viewer" }]);
  });

  it("are not linked by a link started in a session that has ended before the provider answered", async () => {
    await identity.users.create({ email: "sam@corp.example", name: "Sam", password: PASSWORD }, ACTOR);
    idp.setPerson("sam-at-idp", { email: "sam@corp.example", email_verified: true, name: "Sam" });
    const { browser, csrf } = await passwordSession("sam@corp.example");
    const started = await json(await post("/auth/oidc/corp/link", {}, browser, csrf));
    await post("/auth/sign-out", {}, browser, csrf);
    const back = await throughProvider(browser, started.url, "sam-at-idp");
    expect(back.hash).toMatch(/^#\/sign-in\?error=/);
    expect(await t.store.stores.users.bySubject("corp", "sam-at-idp")).toBeNull();
  });

  it("are not linked to a second person: an identity already linked is refused", async () => {
    await identity.users.create(
      { email: "mallory@corp.example", name: "Mallory", password: PASSWORD },
      ACTOR,
    );
    const { browser, csrf } = await passwordSession("mallory@corp.example");
    const started = await json(await post("/auth/oidc/corp/link", {}, browser, csrf));
    const back = await throughProvider(browser, started.url, "pat-at-idp");
    expect(back.hash).toBe("#/sign-in?error=forbidden&provider=corp");
    const pat = await t.store.stores.users.byEmail("pat@corp.example");
    expect((await t.store.stores.users.bySubject("corp", "pat-at-idp"))?.id).toBe(pat?.id);
  });

  it("are linked once an operator allows it, once, within the link's lifetime", async () => {
    const quinn = await identity.users.create(
      { email: "quinn@corp.example", name: "Quinn", password: PASSWORD },
      ACTOR,
    );
    idp.setPerson("quinn-at-idp", { email: "quinn@corp.example", email_verified: true, name: "Quinn" });
    const allow = () =>
      fetch(`${admin}/admin/v1/users/${quinn.id}/allow-link`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ provider: "corp" }),
      });
    expect((await allow()).status).toBe(200);
    t.clock.advance(24 * 3_600_000 + 1);
    const late = await throughProvider(new Browser(), `${admin}/auth/oidc/corp/start`, "quinn-at-idp");
    expect(late.hash).toBe("#/sign-in?error=provider_link_required&provider=corp");

    const allowed = await json(await allow());
    expect(allowed).toMatchObject({ provider: "corp", until: expect.any(String) });
    const back = await throughProvider(new Browser(), `${admin}/auth/oidc/corp/start`, "quinn-at-idp");
    expect(back.href).toBe(`${admin}/`);
    expect((await t.store.stores.users.bySubject("corp", "quinn-at-idp"))?.id).toBe(quinn.id);
    expect(
      t.logs.filter((line) => line.event === "provider.link" && line.user === quinn.id).map((l) => l.outcome),
    ).toEqual(["by_operator"]);
    const unknown = await fetch(`${admin}/admin/v1/users/${quinn.id}/allow-link`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ provider: "nope" }),
    });
    expect((await json(unknown)).error.code).toBe("provider_not_found");
  });

  it("a user made by an operator that nobody has signed in as is linked by the verified e-mail, as before", async () => {
    const made = await identity.users.create({ email: "new@corp.example", name: "New" }, ACTOR);
    idp.setPerson("new-at-idp", { email: "new@corp.example", email_verified: true, name: "New" });
    const back = await throughProvider(new Browser(), `${admin}/auth/oidc/corp/start`, "new-at-idp");
    expect(back.href).toBe(`${admin}/`);
    expect((await t.store.stores.users.bySubject("corp", "new-at-idp"))?.id).toBe(made.id);
  });
});
