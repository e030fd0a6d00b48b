// Signing in with the company's identity provider, the whole redirect flow over real HTTP against a real
// OpenID provider (oidc-provider, test/helpers/oidc-provider.ts): the first sign-in creates the person, the
// provider's groups give the roles and accounts the mapping rules say, a group removed at the provider
// removes its access at the next sign-in (direct grants stay), a disabled person is refused, return_to never
// leaves the dashboard, a sign-in is bound to the browser that started it and its state is used once, and a
// provider that cannot be reached refuses sign-in with it without stopping anything else.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTOR } from "../helpers/actor.js";
import { Browser, type Hop } from "../helpers/browser.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { freePort } from "../helpers/http.js";
import {
  gatewayClient,
  providerSettings,
  startIdentityProvider,
  type TestIdentityProvider,
} from "../helpers/oidc-provider.js";

const SECRET = "corp-client-secret-0123456789";
let idp: TestIdentityProvider;
/** A second provider, whose ID tokens carry the groups and the e-mail themselves. */
let inToken: TestIdentityProvider;
let t: TestGateway;
let admin: string;

beforeAll(async () => {
  const port = await freePort();
  admin = `http://127.0.0.1:${port}`;
  idp = await startIdentityProvider({
    clients: [gatewayClient(admin, SECRET, ["corp"])],
  });
  inToken = await startIdentityProvider({
    clients: [gatewayClient(admin, SECRET, ["direct"])],
    claimsInIdToken: true,
  });
  const down = await freePort();
  t = await startTestGateway({
    env: { CORP_SECRET: SECRET },
    config: {
      admin: { port },
      signIn: {
        providers: [
          providerSettings(
            idp,
            { id: "corp", name: "Corporate login", secretEnv: "CORP_SECRET" },
            {
              authParams: { ui_locales: "ru" },
              rules: [
                { groups: ["platform-admins"], operator: "operator" },
                { groups: ["finance"], operator: "operator-viewer" },
                { groups: ["team-acme"], account: "acme", role: "member" },
                { groups: ["acme-leads"], account: "acme", role: "owner" },
                { emailDomains: ["acme.example"], account: "acme", role: "viewer" },
                { groups: ["team-ghost"], account: "ghost", role: "member" },
              ],
            },
          ),
          providerSettings(
            inToken,
            { id: "direct", name: "Groups in the ID token", secretEnv: "CORP_SECRET" },
            { rules: [{ groups: ["team-other"], account: "other", role: "viewer" }] },
          ),
          { id: "down", name: "Unreachable", issuer: `http://127.0.0.1:${down}`, clientId: "x" },
        ],
      },
    } as never,
  });
  await t.store.accountService.create({ id: "acme", name: "Acme" }, ACTOR);
  await t.store.accountService.create({ id: "other", name: "Other" }, ACTOR);
});

afterAll(async () => {
  await t?.close();
  await idp?.close();
  await inToken?.close();
});

/** Signs in through the provider as `login`; returns the hops and where the browser ended. */
async function signIn(browser: Browser, login: string, returnTo = "/#/accounts/acme", provider = "corp") {
  const start = await browser.navigate(
    `${admin}/auth/oidc/${provider}/start?return_to=${encodeURIComponent(returnTo)}`,
  );
  const form = start.hops.at(-1) as { url: string; status: number };
  expect(form.status, "the provider's login page").toBe(200);
  expect(form.url.startsWith((provider === "corp" ? idp : inToken).issuer)).toBe(true);
  await start.res.text();
  const done = await browser.submit(form.url, { login });
  const hops = [...start.hops, ...done.hops];
  return { hops, final: callbackOf(hops) };
}

/** The gateway's callback hop: where the provider sent the browser back, and where it was sent on. */
function callbackOf(hops: Hop[]): Hop {
  const hop = hops.find((h) => h.url.startsWith(`${admin}/auth/oidc/`) && h.url.includes("/callback"));
  if (!hop) throw new Error(`the browser never came back: ${hops.map((h) => h.url).join(" -> ")}`);
  return hop;
}

async function me(browser: Browser) {
  const res = await browser.request(`${admin}/admin/v1/me`);
  return { status: res.res.status, body: await json(res.res) };
}

describe("signing in with the identity provider", () => {
  it("creates the person at the first sign-in, gives the mapped roles, and lands on return_to", async () => {
    idp.setPerson("alice", {
      email: "Alice@Corp.example",
      email_verified: true,
      name: "Alice Liddell",
      groups: ["team-acme", "finance", "team-ghost"],
    });
    const browser = new Browser();
    const { hops, final } = await signIn(browser, "alice");
    // Authorization code flow with PKCE, state and nonce.
    const authorize = new URL(hops[0]?.location as string);
    expect(authorize.origin).toBe(idp.issuer);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authorize.searchParams.get("state")).toBeTruthy();
    expect(authorize.searchParams.get("nonce")).toBeTruthy();
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${admin}/auth/oidc/corp/callback`);
    // The provider's extra parameters ride along (Google's access_type: offline would, this way).
    expect(authorize.searchParams.get("ui_locales")).toBe("ru");
    expect(final.location).toBe(`${admin}/#/accounts/acme`);
    // This provider keeps groups out of the ID token: they came from userinfo.
    expect(idp.userinfoRequests()).toBeGreaterThan(0);
    const cookie = final.setCookies.find((c) => c.name === "tg_session");
    expect(cookie?.attributes.has("httponly")).toBe(true);
    expect(cookie?.attributes.get("samesite")).toBe("Lax");
    expect(cookie?.attributes.get("path")).toBe("/");

    const { status, body } = await me(browser);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      credential: "session",
      user: { name: "Alice Liddell", email: "alice@corp.example" },
      signed_in_with: { via: "oidc", provider: "corp" },
      operator_role: "operator-viewer",
      memberships: [{ account_id: "acme", account_name: "Acme", role: "member" }],
    });
    expect(body.csrf_token).toMatch(/^[\w-]{43}$/);
    expect(body.actions.accounts.acme).toContain("keys.write");
    expect(body.actions.every_account).toContain("usage.read");
    expect(body.actions.every_account).not.toContain("keys.write");
    const user = await t.store.stores.users.byEmail("alice@corp.example");
    expect(user).toMatchObject({ name: "Alice Liddell", providers: ["corp"], status: "active" });
    // The mapping named an account that does not exist: said in the log, nothing else happens.
    expect(
      t.logs.some(
        (line) =>
          line.msg === "a mapping rule names accounts that do not exist; create them or fix the rules",
      ),
    ).toBe(true);
  });

  it("re-applies the mapping at every sign-in: a group removed at the provider removes its access, direct grants stay", async () => {
    const browser = new Browser();
    idp.setPerson("bob", {
      email: "bob@acme.example",
      email_verified: true,
      name: "Bob",
      groups: ["acme-leads", "platform-admins"],
    });
    await signIn(browser, "bob");
    expect((await me(browser)).body).toMatchObject({
      operator_role: "operator",
      memberships: [{ account_id: "acme", role: "owner" }],
    });
    const bob = await t.store.stores.users.byEmail("bob@acme.example");
    const identity = t.store.stores;
    await identity.users.setAccountGrant("other", bob?.id as string, "direct", "viewer", "{}");

    idp.setPerson("bob", { email: "bob@acme.example", email_verified: true, name: "Bob", groups: [] });
    const again = new Browser();
    await signIn(again, "bob");
    // Only the e-mail domain's rule is left for acme; the operator role is gone; the direct grant stays.
    expect((await me(again)).body).toMatchObject({
      operator_role: null,
      memberships: [
        { account_id: "acme", role: "viewer" },
        { account_id: "other", role: "viewer" },
      ],
    });
    // The first browser's session is still signed in, and sees what the grants say now.
    expect((await me(browser)).body).toMatchObject({ operator_role: null });
    const res = await browser.request(`${admin}/admin/v1/accounts/acme/members`);
    expect(res.res.status).toBe(403);
  });

  it("refuses a disabled person, sending the browser to the sign-in page with the reason", async () => {
    idp.setPerson("carol", {
      email: "carol@corp.example",
      email_verified: true,
      name: "Carol",
      groups: ["team-acme"],
    });
    await signIn(new Browser(), "carol");
    const carol = await t.store.stores.users.byEmail("carol@corp.example");
    await t.store.stores.users.update(carol?.id as string, { status: "disabled" }, "");
    const browser = new Browser();
    const { final } = await signIn(browser, "carol");
    expect(final.location).toBe(`${admin}/#/sign-in?error=user_disabled&provider=corp`);
    expect(browser.cookies(admin).has("tg_session")).toBe(false);
    expect((await me(browser)).status).toBe(401);
  });

  it("ignores a return_to that would leave the dashboard, in favour of /", async () => {
    idp.setPerson("dave", { email: "dave@corp.example", email_verified: true, groups: [] });
    for (const returnTo of [
      "https://evil.example",
      "//evil.example/x",
      "/\\evil.example",
      "javascript:alert(1)",
    ]) {
      const { final } = await signIn(new Browser(), "dave", returnTo);
      expect(final.location, returnTo).toBe(`${admin}/`);
    }
  });

  it("binds a sign-in to the browser that started it, and uses its state once", async () => {
    idp.setPerson("erin", { email: "erin@corp.example", email_verified: true, groups: [] });
    const started = new Browser();
    const start = await started.navigate(`${admin}/auth/oidc/corp/start`);
    const loginPage = start.hops.at(-1)?.url as string;
    await start.res.text();
    // Another browser (an attacker's victim) is made to finish it: refused, no session.
    const other = new Browser();
    other.jar.set(idp.issuer, new Map(started.cookies(idp.issuer)));
    const finished = await other.submit(loginPage, { login: "erin" });
    const callback = callbackOf(finished.hops);
    expect(callback.location).toBe(`${admin}/#/sign-in?error=csrf_refused&provider=corp`);
    expect(other.cookies(admin).has("tg_session")).toBe(false);
    // The state was taken by that try: the right browser cannot use it again either.
    const replay = await started.request(callback.url);
    expect(replay.hop.location).toBe(`${admin}/#/sign-in?error=session_expired&provider=corp`);
  });

  it("links a verified e-mail to the existing person, and refuses an unverified one", async () => {
    const identity = t.store.stores;
    const local = await identity.users.byEmail("frank@corp.example");
    expect(local).toBeNull();
    await startUser("frank@corp.example");
    idp.setPerson("frank-unverified", { email: "frank@corp.example", email_verified: false, groups: [] });
    const refused = await signIn(new Browser(), "frank-unverified");
    expect(refused.final.location).toBe(`${admin}/#/sign-in?error=sign_in_failed&provider=corp`);
    idp.setPerson("frank", { email: "frank@corp.example", email_verified: true, groups: [] });
    const browser = new Browser();
    await signIn(browser, "frank");
    expect((await me(browser)).body.user.email).toBe("frank@corp.example");
    expect((await t.store.stores.users.byEmail("frank@corp.example"))?.providers).toEqual(["corp"]);
  });

  it("reads the groups from the ID token when it carries them, without asking userinfo", async () => {
    inToken.setPerson("grace", {
      email: "grace@corp.example",
      email_verified: true,
      name: "Grace",
      groups: ["team-other"],
    });
    const browser = new Browser();
    const { final } = await signIn(browser, "grace", "/", "direct");
    expect(final.location).toBe(`${admin}/`);
    expect(inToken.userinfoRequests()).toBe(0);
    expect((await me(browser)).body).toMatchObject({
      signed_in_with: { via: "oidc", provider: "direct" },
      memberships: [{ account_id: "other", role: "viewer" }],
    });
  });

  it("refuses sign-in with a provider that cannot be reached, and keeps serving everything else", async () => {
    const browser = new Browser();
    const { hop } = await browser.request(`${admin}/auth/oidc/down/start`);
    expect(hop.location).toBe(`${admin}/#/sign-in?error=identity_provider_unavailable&provider=down`);
    expect((await fetch(`${admin}/auth/providers`)).status).toBe(200);
    expect((await t.fetch("/healthz")).status).toBe(200);
    const providers = await json(await fetch(`${admin}/auth/providers`));
    expect(providers).toEqual({
      providers: [
        { id: "corp", name: "Corporate login", start_url: "/auth/oidc/corp/start" },
        { id: "direct", name: "Groups in the ID token", start_url: "/auth/oidc/direct/start" },
        { id: "down", name: "Unreachable", start_url: "/auth/oidc/down/start" },
      ],
      password: false,
      min_password_length: 12,
      session: "none",
    });
  });
});

describe("sign-in events of the identity provider's flow", () => {
  const outcomes = () =>
    t.logs.filter((line) => line.event === "sign_in.oidc").map((line) => [line.outcome, line.level]);

  it("log and count each sign-in and each failure by reason, at warn", async () => {
    // The tests above: successes, a disabled person, another browser, a state used twice, an unverified
    // e-mail, a provider that cannot be reached.
    expect(outcomes()).toEqual(
      expect.arrayContaining([
        ["success", 30],
        ["user_disabled", 40],
        ["browser_mismatch", 40],
        ["state_mismatch", 40],
        ["unverified_email", 40],
        ["provider_unavailable", 40],
      ]),
    );
    const scrape = await (await fetch(`${t.gateway.metricsUrl}/metrics`)).text();
    expect(scrape).toMatch(
      /^tunnel_gateway_identity_events_total\{event="sign_in.oidc",outcome="state_mismatch"\} [1-9]/m,
    );
  });

  it("log a refusal by the provider as provider_error, and an ID token whose nonce is not ours as nonce_mismatch", async () => {
    idp.setPerson("nina", { email: "nina@corp.example", email_verified: true, groups: [] });
    const refusedAtProvider = new Browser();
    const start = await refusedAtProvider.navigate(`${admin}/auth/oidc/corp/start`);
    await start.res.text();
    const state = new URL(start.hops[0]?.location as string).searchParams.get("state") as string;
    const denied = await refusedAtProvider.request(
      `${admin}/auth/oidc/corp/callback?error=access_denied&state=${encodeURIComponent(state)}`,
    );
    expect(denied.hop.location).toBe(`${admin}/#/sign-in?error=sign_in_failed&provider=corp`);
    expect(outcomes().at(-1)).toEqual(["provider_error", 40]);

    // The nonce remembered for this sign-in is not the one the provider put in the ID token.
    const browser = new Browser();
    const begun = await browser.navigate(`${admin}/auth/oidc/corp/start`);
    const loginPage = begun.hops.at(-1)?.url as string;
    await begun.res.text();
    const [key] = (await t.store.allKeys()).filter((k) => k.includes("oidc-state:"));
    const pending = JSON.parse((await t.store.redis.get(key as string)) as string);
    await t.store.redis.set(
      key as string,
      JSON.stringify({ ...pending, nonce: "someone-elses-nonce" }),
      "PX",
      60_000,
    );
    const finished = await browser.submit(loginPage, { login: "nina" });
    expect(callbackOf(finished.hops).location).toBe(`${admin}/#/sign-in?error=sign_in_failed&provider=corp`);
    expect(outcomes().at(-1)).toEqual(["nonce_mismatch", 40]);
    expect(browser.cookies(admin).has("tg_session")).toBe(false);
  });
});

async function startUser(email: string) {
  const users = t.store.stores.users;
  await users.create(
    { id: `usr_${"f".repeat(20)}`, name: "Frank", email, createdAt: t.clock.now(), operatorGrants: {} },
    "{}",
  );
}
