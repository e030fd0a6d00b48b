// Who a provider's identity is, once the provider has vouched for it, on the suite's Redis with the test's
// clock. The provider's callback (test/e2e/sign-in-oidc*.test.ts, against a real OpenID provider) hands
// ProviderPeople what the provider said; here that is given directly, so that each branch is reached: a
// linked subject, a new person (or none without a rule), an existing person linked only with proof — their
// own request, an operator's leave, the directory's word — a disabled person, no e-mail, an unverified one;
// the grants the rules give, and the tokens kept sealed with the next re-check scheduled.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import { emailOf, type VerifiedIdentity } from "../../src/identity/oidc-person.js";
import type { Actor } from "../../src/store/audit/audit-store.js";
import { ACTOR } from "../helpers/actor.js";
import { identityEventsOf } from "../helpers/channels.js";
import { testIdentity } from "../helpers/identity.js";
import { type CapturedLogs, captureLogs } from "../helpers/logs.js";
import { openStore, type TestStore } from "../helpers/store.js";

const PASSWORD = "correct horse battery staple";
const TOKENS = { refresh: "refresh-token-value", access: "access-token-value", accessExpiresAt: null };
const OKTA: Actor = { kind: "scim", tokenId: "scim_test", tokenName: "Okta" };
const PROVIDER = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: id.toUpperCase(),
  issuer: `http://127.0.0.1:9/${id}`,
  clientId: "gw",
  ...extra,
});
let store: TestStore;
let identity: Identity;
let logs: CapturedLogs;
let recorded: ReturnType<typeof identityEventsOf>;
beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme" }, ACTOR);
  logs = captureLogs();
  identity = testIdentity(store, {
    logger: logs.logger,
    providerSecrets: new Map([["corp", "corp-client-secret-0123456789"]]),
    signIn: {
      providerCheck: { intervalMinutes: 5 },
      providers: [
        PROVIDER("corp", {
          rules: [
            { groups: ["eng"], account: "acme", role: "member" },
            { groups: ["ghosts"], account: "ghost", role: "member" },
          ],
        }),
        PROVIDER("strict", {
          createUnmatched: false,
          rules: [{ groups: ["eng"], account: "acme", role: "viewer" }],
        }),
        PROVIDER("lax", { trustUnverifiedEmail: true }),
      ],
      scim: { provider: "corp" },
    },
  });
  recorded = identityEventsOf(identity.events);
});
afterEach(() => {
  recorded.stop();
  store.close();
});

function said(providerId: string, subject: string, profile: Record<string, unknown>): VerifiedIdentity {
  return { provider: identity.oidc.settings(providerId), subject, profile, tokens: TOKENS };
}
const verified = (email: string, extra: Record<string, unknown> = {}) => ({
  email,
  email_verified: true,
  ...extra,
});
const outcomes = () => recorded.seen.map(({ event, outcome }) => `${event} ${outcome}`);

describe("emailOf", () => {
  it("believes an e-mail verified only when the provider says so, or is trusted to", () => {
    const corp = identity.oidc.settings("corp");
    expect(emailOf(corp, { email: " Ann@Example.com ", email_verified: true })).toEqual({
      email: "ann@example.com",
      verified: true,
    });
    expect(emailOf(corp, { email: "ann@example.com" })).toEqual({
      email: "ann@example.com",
      verified: false,
    });
    expect(emailOf(identity.oidc.settings("lax"), { email: "ann@example.com" }).verified).toBe(true);
    expect(emailOf(corp, { email: 42, email_verified: true })).toEqual({ email: null, verified: false });
  });
});

describe("ProviderPeople.signIn", () => {
  it("creates a person the first time, named by the provider, with the grants its rules give", async () => {
    const { user, linked } = await identity.people.signIn(
      said("corp", "sub-1", verified("ann@example.com", { name: " Ann Lee ", groups: ["eng"] })),
      null,
    );
    expect(linked).toBe(false);
    expect(user).toMatchObject({ email: "ann@example.com", name: "Ann Lee" });
    expect((await identity.grants.member("acme", user.id)).grants).toEqual({ "oidc:corp": "member" });
    const again = await identity.people.signIn(said("corp", "sub-1", verified("other@example.com")), null);
    expect(again.user.id).toBe(user.id);
    // The second time the rules give nothing: the grant goes.
    expect(await identity.grants.memberships(user.id)).toEqual([]);
  });

  it("keeps the tokens sealed and schedules the next re-check", async () => {
    const { user } = await identity.people.signIn(said("corp", "sub-1", verified("ann@example.com")), null);
    const link = await store.stores.providerLinks.get(user.id, "corp");
    expect(link).toMatchObject({ subject: "sub-1", confirmedAt: store.clock.now() });
    expect(link?.refresh).not.toBeNull();
    expect(JSON.stringify(await store.allKeys())).not.toContain("refresh-token-value");
    expect(JSON.stringify(link)).not.toContain("refresh-token-value");
    expect(identity.oidc.cipher("corp")?.open(link?.refresh as string)).toBe("refresh-token-value");
    expect(await store.stores.providerLinks.nextCheck({ userId: user.id, providerId: "corp" } as never)).toBe(
      store.clock.now() + 5 * 60_000,
    );
    // A public client's tokens are not kept.
    const lax = await identity.people.signIn(said("lax", "sub-2", verified("bob@example.com")), null);
    expect((await store.stores.providerLinks.get(lax.user.id, "lax"))?.refresh).toBeNull();
  });

  it("refuses an identity without an e-mail, and a stranger no rule gives a role where that is required", async () => {
    await expect(identity.people.signIn(said("corp", "sub-1", {}), null)).rejects.toMatchObject({
      code: "sign_in_failed",
      message: "The identity provider CORP gave no e-mail: add the email scope (or claim).",
    });
    await expect(
      identity.people.signIn(said("strict", "sub-2", verified("ann@example.com")), null),
    ).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringContaining("no rule of this gateway"),
    });
    expect(await identity.users.byEmail("ann@example.com")).toBeNull();
    const { user } = await identity.people.signIn(
      said("strict", "sub-2", verified("ann@example.com", { groups: ["eng"] })),
      null,
    );
    expect((await identity.grants.member("acme", user.id)).role).toBe("viewer");
    expect(outcomes()).toEqual(["sign_in.oidc no_email", "sign_in.oidc no_rule"]);
  });

  it("links a person nobody signs in as yet by their verified e-mail, never by an unverified one", async () => {
    const ann = await identity.users.create({ email: "ann@example.com" }, ACTOR);
    await expect(
      identity.people.signIn(said("corp", "sub-1", { email: "ann@example.com" }), null),
    ).rejects.toMatchObject({
      code: "sign_in_failed",
      message: expect.stringContaining("does not say the e-mail is verified"),
    });
    expect(recorded.seen.at(-1)).toMatchObject({ outcome: "unverified_email", userId: ann.id });
    const { user } = await identity.people.signIn(said("corp", "sub-1", verified("ann@example.com")), null);
    expect(user.id).toBe(ann.id);
    expect(recorded.seen).toHaveLength(1); // no proof was needed: no provider.link event
  });

  it("asks a person who signs in with a password for proof before linking, then links with an operator's leave once", async () => {
    const ann = await identity.users.create({ email: "ann@example.com", password: PASSWORD }, ACTOR);
    const attempt = () => identity.people.signIn(said("corp", "sub-1", verified("ann@example.com")), null);
    await expect(attempt()).rejects.toMatchObject({
      code: "provider_link_required",
      fields: { provider: "corp" },
    });
    const until = await identity.people.allowLink(ann.id, "corp", ACTOR);
    expect(until).toBe(store.clock.now() + identity.settings.passwordLinkMs);
    expect((await attempt()).user.id).toBe(ann.id);
    expect(outcomes()).toEqual(["sign_in.oidc link_required", "provider.link by_operator"]);
    const log = (await store.stores.audit.listUser(ann.id, 10)).map((e) => [e.action, e.details]);
    expect(log.slice(0, 2)).toEqual([
      ["user.provider_link", { provider: "corp", how: "by_operator" }],
      ["user.provider_link", { provider: "corp", allowed_until: new Date(until).toISOString() }],
    ]);
    await expect(identity.people.allowLink(ann.id, "nowhere", ACTOR)).rejects.toMatchObject({
      code: "provider_not_found",
    });
  });

  it("lets an operator's leave lapse", async () => {
    const ann = await identity.users.create({ email: "ann@example.com", password: PASSWORD }, ACTOR);
    await identity.people.allowLink(ann.id, "corp", ACTOR);
    store.clock.advance(identity.settings.passwordLinkMs);
    await expect(
      identity.people.signIn(said("corp", "sub-1", verified("ann@example.com")), null),
    ).rejects.toMatchObject({ code: "provider_link_required" });
  });

  it("asks proof of a person linked to another provider, and links the signed-in person who asks", async () => {
    const first = await identity.people.signIn(said("lax", "sub-lax", verified("ann@example.com")), null);
    // As the callback does once the session starts: the person now signs in with lax.
    await identity.users.signedIn(first.user, { via: "oidc", provider: "lax" }, "192.0.2.1");
    await expect(
      identity.people.signIn(said("corp", "sub-1", verified("ann@example.com")), null),
    ).rejects.toMatchObject({ code: "provider_link_required" });
    const { user, linked } = await identity.people.signIn(
      said("corp", "sub-1", verified("someone-else@example.com")),
      first.user.id,
    );
    expect([user.id, linked]).toEqual([first.user.id, true]);
    expect(outcomes().at(-1)).toBe("provider.link by_person");
    // Linked already: asking again links nothing new.
    expect((await identity.people.signIn(said("corp", "sub-1", {}), first.user.id)).linked).toBe(false);
  });

  it("refuses to link an identity already another person's, and a link asked by a person who is gone", async () => {
    const ann = await identity.people.signIn(said("corp", "sub-1", verified("ann@example.com")), null);
    const bob = await identity.users.create({ email: "bob@example.com" }, ACTOR);
    await expect(identity.people.signIn(said("corp", "sub-1", {}), bob.id)).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringContaining("already linked to another person"),
    });
    expect(recorded.seen.at(-1)).toMatchObject({
      event: "provider.link",
      outcome: "refused",
      userId: bob.id,
    });
    await expect(
      identity.people.signIn(said("corp", "sub-9", {}), `usr_${"x".repeat(20)}`),
    ).rejects.toMatchObject({
      code: "session_expired",
    });
    expect(ann.user.id).not.toBe(bob.id);
  });

  it("takes the directory's word for the people it made, through the SCIM provider only", async () => {
    const made = await identity.scim.users.create(
      "",
      { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "dan@example.com" },
      OKTA,
    );
    await expect(
      identity.people.signIn(said("lax", "sub-lax", verified("dan@example.com")), null),
    ).rejects.toMatchObject({ code: "provider_link_required" });
    const { user } = await identity.people.signIn(said("corp", "sub-1", { email: "dan@example.com" }), null);
    expect(user.id).toBe(made.id);
    expect(outcomes().at(-1)).toBe("provider.link by_directory");
  });

  it("refuses a disabled person, linked or not", async () => {
    const { user } = await identity.people.signIn(said("corp", "sub-1", verified("ann@example.com")), null);
    await identity.users.disable(user.id, ACTOR);
    await expect(identity.people.signIn(said("corp", "sub-1", {}), null)).rejects.toMatchObject({
      code: "user_disabled",
    });
    expect(recorded.seen.at(-1)).toMatchObject({
      event: "sign_in.oidc",
      outcome: "user_disabled",
      userId: user.id,
    });
  });

  it("warns when a rule the person matches names an account that does not exist", async () => {
    await identity.people.signIn(
      said("corp", "sub-1", verified("ann@example.com", { groups: ["ghosts"] })),
      null,
    );
    expect(logs.lines.find((line) => line.level === 40)).toMatchObject({
      provider: "corp",
      accounts: ["ghost"],
    });
  });
});
