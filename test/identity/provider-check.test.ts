// The re-checks between sign-ins, against a real OpenID provider, on the suite's Redis with the test's clock
// (the scenarios of a whole gateway are test/e2e/provider-recheck.test.ts): what is due runs once even when
// asked twice at once; confirmed with the same roles or with changed ones (reported with the roles, audited);
// refused (sessions through the provider ended, its grants gone, a direct grant kept, tokens forgotten,
// audited); unreachable within the grace and past it; and links of a person disabled or gone unscheduled.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import { ACTOR } from "../helpers/actor.js";
import { identityEventsOf } from "../helpers/channels.js";
import type { Listening } from "../helpers/http.js";
import { testIdentity } from "../helpers/identity.js";
import {
  gatewayClient,
  providerSettings,
  startIdentityProvider,
  type TestIdentityProvider,
} from "../helpers/oidc-provider.js";
import { callbackListener, signInThroughProvider } from "../helpers/oidc-sign-in.js";
import { openStore, type TestStore } from "../helpers/store.js";

const SECRET = "check-client-secret-0123456789";
const MINUTE = 60_000;
let idp: TestIdentityProvider;
let callback: Listening;
let store: TestStore;
let identity: Identity;
let recorded: ReturnType<typeof identityEventsOf>;
beforeAll(async () => {
  callback = await callbackListener();
  idp = await startIdentityProvider({
    clients: [gatewayClient(callback.url, SECRET, ["corp"])],
    refreshTokens: true,
  });
});
afterAll(async () => {
  await idp?.close();
  await callback?.close();
});
beforeEach(async () => {
  idp.setDown(false);
  store = await openStore();
  await store.accountService.create({ id: "acme" }, ACTOR);
  identity = testIdentity(store, {
    providerSecrets: new Map([["corp", SECRET]]),
    signIn: {
      providerCheck: { intervalMinutes: 5, graceMinutes: 60 },
      // Longer than the grace, so that only a re-check ends a session here.
      sessions: { idleMinutes: 600, absoluteHours: 24 },
      providers: [
        providerSettings(
          idp,
          { id: "corp", name: "Corp", secretEnv: "UNUSED" },
          { rules: [{ groups: ["team-acme"], account: "acme", role: "member" }] },
        ),
      ],
    },
  });
  recorded = identityEventsOf(identity.events);
  return () => {
    recorded.stop();
    store.close();
  };
});

let people = 0;
/** A person signed in through the provider, in `groups`, with a session through it. */
async function signedIn(groups: string[]) {
  const subject = `checked-${++people}`;
  idp.setPerson(subject, { email: `${subject}@example.com`, email_verified: true, groups });
  const { user } = await signInThroughProvider(identity, store.stores, "corp", subject, callback);
  const { id } = await identity.sessions.start(
    user.id,
    { via: "oidc", provider: "corp" },
    { userAgent: "", address: "" },
  );
  recorded.seen.length = 0;
  return { subject, user, session: id };
}
const checks = () => recorded.seen.filter((event) => event.event === "provider.check");
const due = (userId: string) =>
  ({ userId, providerId: "corp" }) as Parameters<Identity["checks"]["check"]>[0];
const personLog = async (userId: string) =>
  (await store.stores.audit.listUser(userId, 20)).map((entry) => [entry.action, entry.details]);

describe("ProviderChecks.runDue", () => {
  it("checks nothing before the interval, then each due link once even when asked twice at once", async () => {
    const { user } = await signedIn(["team-acme"]);
    expect(await identity.checks.runDue()).toBe(0);
    store.clock.advance(5 * MINUTE);
    const [first, second] = await Promise.all([identity.checks.runDue(), identity.checks.runDue()]);
    expect([first, second]).toEqual([1, 1]);
    expect(checks()).toEqual([
      { event: "provider.check", outcome: "confirmed", userId: user.id, provider: "corp" },
    ]);
    expect(await identity.checks.runDue()).toBe(0);
    store.clock.advance(5 * MINUTE);
    expect(await identity.checks.runDue()).toBe(1);
  });
});

describe("ProviderChecks.check", () => {
  it("applies what the provider says now: a group left takes its role, reported with the roles and audited", async () => {
    const { subject, user } = await signedIn(["team-acme"]);
    expect((await identity.grants.member("acme", user.id)).role).toBe("member");
    idp.setPerson(subject, { email: `${subject}@example.com`, email_verified: true, groups: [] });
    expect(await identity.checks.check(due(user.id))).toBe("roles_changed");
    expect(checks().at(-1)).toMatchObject({ outcome: "roles_changed", detail: "no roles" });
    expect(await identity.grants.memberships(user.id)).toEqual([]);
    expect((await personLog(user.id))[0]).toEqual([
      "user.provider_check",
      { outcome: "roles_changed", roles: "" },
    ]);
    idp.setPerson(subject, { email: `${subject}@example.com`, email_verified: true, groups: ["team-acme"] });
    expect(await identity.checks.check(due(user.id))).toBe("roles_changed");
    expect(checks().at(-1)).toMatchObject({ detail: "acme=member" });
  });

  it("on a refusal ends the sessions through the provider and its grants, keeping a direct grant and the person", async () => {
    const { subject, user, session } = await signedIn(["team-acme"]);
    await identity.grants.grant("acme", user.id, "direct", "viewer", ACTOR);
    idp.removePerson(subject);
    expect(await identity.checks.check(due(user.id))).toBe("refused");
    await expect(identity.sessions.resume(session)).rejects.toBeTruthy();
    expect((await identity.grants.member("acme", user.id)).grants).toEqual({ direct: "viewer" });
    expect((await identity.users.find(user.id)).status).toBe("active");
    const link = await store.stores.providerLinks.get(user.id, "corp");
    expect([link?.refresh, link?.access]).toEqual([null, null]);
    expect(recorded.seen.map(({ event, outcome }) => `${event} ${outcome}`)).toEqual([
      "provider.check refused",
      "session.revoke provider_refused",
    ]);
    expect((await personLog(user.id)).find(([action]) => action === "user.provider_check")).toEqual([
      "user.provider_check",
      { outcome: "refused", reason: "invalid_grant", sessions_ended: 1 },
    ]);
  });

  it("changes nothing while the provider is unreachable within the grace, and ends the sessions past it", async () => {
    const { user, session } = await signedIn(["team-acme"]);
    idp.setDown(true);
    store.clock.advance(60 * MINUTE);
    expect(await identity.checks.check(due(user.id))).toBe("unreachable");
    await expect(identity.sessions.resume(session)).resolves.toBeTruthy();
    store.clock.advance(1);
    expect(await identity.checks.check(due(user.id))).toBe("unreachable");
    await expect(identity.sessions.resume(session)).rejects.toBeTruthy();
    expect((await identity.grants.member("acme", user.id)).role).toBe("member");
    expect(recorded.seen.map(({ event, outcome }) => `${event} ${outcome}`)).toEqual([
      "provider.check unreachable",
      "provider.check unreachable",
      "session.revoke provider_unconfirmed",
    ]);
    expect(await store.stores.providerLinks.nextCheck(due(user.id))).toBe(store.clock.now() + 5 * MINUTE);
  });

  it("unschedules the link of a person disabled, or one it no longer has", async () => {
    const { user } = await signedIn(["team-acme"]);
    await identity.users.disable(user.id, ACTOR);
    expect(await identity.checks.check(due(user.id))).toBe("gone");
    expect(await store.stores.providerLinks.nextCheck(due(user.id))).toBeNull();
    expect(await identity.checks.check(due(`usr_${"x".repeat(20)}`))).toBe("gone");
    expect(checks()).toEqual([]);
  });

  it("waits, when stopped, for the run under way to finish", async () => {
    await signedIn(["team-acme"]);
    store.clock.advance(5 * MINUTE);
    const run = identity.checks.runDue();
    await identity.checks.stop();
    expect(checks()).toHaveLength(1);
    expect(await run).toBe(1);
  });
});
