// Sessions and API tokens follow the identity provider between sign-ins, against a real OpenID provider
// (oidc-provider): on the gateway's injected clock, within one signIn.providerCheck interval and without
// signing in again, a person removed from a group loses its role (their API token too), a person deleted at
// the provider loses their sessions through it and the roles it gave, and a provider that cannot be reached
// logs nobody out until the grace has passed. With a refresh token the gateway refreshes; without one it
// asks userinfo while the access token lasts. The provider's tokens are in Redis only sealed.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const SECRET = "recheck-client-secret-0123456789";
const MINUTE = 60_000;
/** Gives refresh tokens (as Keycloak does). */
let refreshing: TestIdentityProvider;
/** Gives none: re-checked with userinfo while the access token (an hour) lasts. */
let plain: TestIdentityProvider;
let t: TestGateway;
let admin: string;

const rules = [
  { groups: ["platform-admins"], operator: "operator" },
  { groups: ["team-acme"], account: "acme", role: "member" },
];

beforeAll(async () => {
  const port = await freePort();
  admin = `http://127.0.0.1:${port}`;
  refreshing = await startIdentityProvider({
    clients: [gatewayClient(admin, SECRET, ["corp"])],
    refreshTokens: true,
  });
  plain = await startIdentityProvider({
    clients: [gatewayClient(admin, SECRET, ["plain"])],
  });
  const provider = (id: string, idp: TestIdentityProvider) =>
    providerSettings(idp, { id, name: id, secretEnv: "IDP_SECRET" }, { rules });
  t = await startTestGateway({
    env: { IDP_SECRET: SECRET },
    config: {
      admin: { port },
      signIn: {
        providerCheck: { intervalMinutes: 5, graceMinutes: 60 },
        providers: [provider("corp", refreshing), provider("plain", plain)],
      },
    } as never,
  });
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
});

afterAll(async () => {
  await t?.close();
  await refreshing?.close();
  await plain?.close();
});

/** Signs in through the provider as `login`; returns the browser, signed in, and its CSRF token. */
async function signIn(login: string, provider = "corp") {
  const idp = provider === "corp" ? refreshing : plain;
  const browser = new Browser();
  const start = await browser.navigate(`${admin}/auth/oidc/${provider}/start?return_to=%2F`);
  const form = start.hops.at(-1) as { url: string };
  await start.res.text();
  await browser.submit(form.url, { login });
  expect(idp.logins.at(-1)).toBe(login);
  const me = await browser.request(`${admin}/admin/v1/me`);
  expect(me.res.status).toBe(200);
  return { browser, csrf: (await json(me.res)).csrf_token as string };
}

async function get(browser: Browser, path: string) {
  return (await browser.request(`${admin}${path}`)).res.status;
}

async function tokenFor(signedIn: { browser: Browser; csrf: string }, role: string, accountId?: string) {
  const made = await signedIn.browser.request(`${admin}/admin/v1/me/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: admin, "x-csrf-token": signedIn.csrf },
    body: JSON.stringify({ name: `t-${role}`, role, ...(accountId && { account_id: accountId }) }),
  });
  expect(made.res.status).toBe(201);
  return (await json(made.res)).token as string;
}

async function withToken(token: string, path: string) {
  return (await fetch(`${admin}${path}`, { headers: { authorization: `Bearer ${token}` } })).status;
}

/** Moves the gateway's clock and runs the re-checks that are due then. */
async function laterRecheck(ms: number): Promise<void> {
  t.clock.advance(ms);
  await t.gateway.providerChecks?.runDue();
}

function eventsOf(user: string, event: string) {
  return t.logs.filter((line) => line.event === event && line.user === user).map((line) => line.outcome);
}

describe("re-checks with the identity provider", () => {
  it("take a role away from a person removed from its group within one interval, their API token's too", async () => {
    refreshing.setPerson("alice", {
      email: "alice@corp.example",
      email_verified: true,
      name: "Alice",
      groups: ["team-acme"],
    });
    const alice = await signIn("alice");
    const token = await tokenFor(alice, "member", "acme");
    expect(await get(alice.browser, "/admin/v1/accounts/acme/keys")).toBe(200);
    expect(await withToken(token, "/admin/v1/accounts/acme/keys")).toBe(200);
    const user = await t.store.stores.users.byEmail("alice@corp.example");
    const logins = refreshing.logins.length;
    const refreshes = refreshing.refreshes();

    refreshing.setPerson("alice", {
      email: "alice@corp.example",
      email_verified: true,
      name: "Alice",
      groups: [],
    });
    await laterRecheck(5 * MINUTE - 1);
    expect(await get(alice.browser, "/admin/v1/accounts/acme/keys")).toBe(200);
    await laterRecheck(1);
    expect(await get(alice.browser, "/admin/v1/accounts/acme/keys")).toBe(403);
    expect(await withToken(token, "/admin/v1/accounts/acme/keys")).toBe(403);
    // The session itself goes on: the provider still vouches for her.
    expect(await get(alice.browser, "/admin/v1/me")).toBe(200);
    expect(refreshing.logins.length).toBe(logins);
    expect(refreshing.refreshes()).toBe(refreshes + 1);
    expect(eventsOf(user?.id as string, "provider.check")).toEqual(["roles_changed"]);
    const [entry] = await t.store.stores.audit.listUser(user?.id as string, 1);
    expect(entry).toMatchObject({
      action: "user.provider_check",
      details: { outcome: "roles_changed", roles: "" },
    });

    // Put back in the group: the role comes back at the next check, still without signing in.
    refreshing.setPerson("alice", {
      email: "alice@corp.example",
      email_verified: true,
      name: "Alice",
      groups: ["team-acme", "platform-admins"],
    });
    await laterRecheck(5 * MINUTE);
    expect(await withToken(token, "/admin/v1/accounts/acme/keys")).toBe(200);
    expect((await t.store.stores.users.byEmail("alice@corp.example"))?.operatorGrants).toEqual({
      "oidc:corp": "operator",
    });
  });

  it("end the sessions and take back the roles of a person deleted at the provider; people's grants stay", async () => {
    refreshing.setPerson("bob", {
      email: "bob@corp.example",
      email_verified: true,
      name: "Bob",
      groups: ["team-acme"],
    });
    const bob = await signIn("bob");
    const user = await t.store.stores.users.byEmail("bob@corp.example");
    const userId = user?.id as string;
    await testIdentity(t.store).grants.grant("acme", userId, "direct", "viewer", ACTOR);
    const member = await tokenFor(bob, "member", "acme");
    const viewer = await tokenFor(bob, "viewer", "acme");

    refreshing.removePerson("bob");
    await laterRecheck(5 * MINUTE);
    const me = await bob.browser.request(`${admin}/admin/v1/me`);
    expect(me.res.status).toBe(401);
    expect((await json(me.res)).error.code).toBe("session_expired");
    expect(await withToken(member, "/admin/v1/accounts/acme/keys")).toBe(403);
    // The grant a person gave stays: the provider's refusal is no proof the person left the company.
    expect(await withToken(viewer, "/admin/v1/accounts/acme/keys")).toBe(200);
    expect(await t.store.stores.users.accountGrants("acme", userId)).toEqual({ direct: "viewer" });
    expect((await t.store.stores.users.get(userId))?.status).toBe("active");
    expect(eventsOf(userId, "provider.check")).toEqual(["refused"]);
    expect(eventsOf(userId, "session.revoke")).toEqual(["provider_refused"]);
    // Its tokens are forgotten and it is checked no more, until the next sign-in.
    expect(await t.store.stores.providerLinks.nextCheck({ userId, providerId: "corp" })).toBeNull();
    const link = await t.store.stores.providerLinks.get(userId, "corp");
    expect(link).toMatchObject({ refresh: null, access: null });
  });

  it("log nobody out while the provider cannot be reached, until the grace since its last confirmation", async () => {
    refreshing.setPerson("carol", {
      email: "carol@corp.example",
      email_verified: true,
      name: "Carol",
      groups: ["team-acme"],
    });
    const carol = await signIn("carol");
    const userId = (await t.store.stores.users.byEmail("carol@corp.example"))?.id as string;
    const token = await tokenFor(carol, "member", "acme");
    refreshing.setDown(true);
    try {
      // 55 minutes without a confirmation, the session used all along: within the grace, nothing changes.
      for (let i = 0; i < 11; i++) {
        await laterRecheck(5 * MINUTE);
        expect(await get(carol.browser, "/admin/v1/accounts/acme/keys")).toBe(200);
      }
      await laterRecheck(5 * MINUTE + 1);
      // Past it: the session through the provider ends; the roles (and the token) stay as last confirmed.
      expect(await get(carol.browser, "/admin/v1/me")).toBe(401);
      expect(await withToken(token, "/admin/v1/accounts/acme/keys")).toBe(200);
    } finally {
      refreshing.setDown(false);
    }
    expect(eventsOf(userId, "provider.check")).toEqual(Array(12).fill("unreachable"));
    expect(eventsOf(userId, "session.revoke")).toEqual(["provider_unconfirmed"]);
    // Reachable again: the next check confirms her.
    await laterRecheck(5 * MINUTE);
    expect(eventsOf(userId, "provider.check").at(-1)).toBe("confirmed");
  });

  it("ask userinfo with the access token when the provider gave no refresh token, and end it when that expires", async () => {
    plain.setPerson("dave", {
      email: "dave@corp.example",
      email_verified: true,
      name: "Dave",
      groups: ["team-acme"],
    });
    const dave = await signIn("dave", "plain");
    const userId = (await t.store.stores.users.byEmail("dave@corp.example"))?.id as string;
    const token = await tokenFor(dave, "member", "acme");
    const asked = plain.userinfoRequests();
    plain.setPerson("dave", { email: "dave@corp.example", email_verified: true, name: "Dave", groups: [] });
    await laterRecheck(5 * MINUTE);
    expect(plain.userinfoRequests()).toBe(asked + 1);
    expect(await withToken(token, "/admin/v1/accounts/acme/keys")).toBe(403);
    expect(await get(dave.browser, "/admin/v1/me")).toBe(200);
    // The access token lasts an hour; after it, nothing is left to ask with.
    await laterRecheck(60 * MINUTE);
    expect(await get(dave.browser, "/admin/v1/me")).toBe(401);
    expect(eventsOf(userId, "provider.check")).toEqual(["roles_changed", "refused"]);
  });

  it("keep the provider's tokens in Redis only sealed, and out of every log line", async () => {
    refreshing.setPerson("erin", {
      email: "erin@corp.example",
      email_verified: true,
      name: "Erin",
      groups: [],
    });
    await signIn("erin");
    await laterRecheck(5 * MINUTE);
    const issued = [...refreshing.issuedTokens(), ...plain.issuedTokens()];
    expect(issued.length).toBeGreaterThan(4);
    const stored = JSON.stringify(await redisSnapshot(t.store.redis, t.store.prefix));
    const logged = t.logs.map((line) => JSON.stringify(line)).join("\n");
    for (const token of issued) {
      expect(stored, "a provider's token in Redis").not.toContain(token);
      expect(logged, "a provider's token in the log").not.toContain(token);
    }
    const userId = (await t.store.stores.users.byEmail("erin@corp.example"))?.id as string;
    const link = await t.store.stores.providerLinks.get(userId, "corp");
    expect(link?.refresh).toMatch(/^v1\.[\w-]{40,}$/);
    expect(link?.access).toMatch(/^v1\.[\w-]{40,}$/);
  });
});
