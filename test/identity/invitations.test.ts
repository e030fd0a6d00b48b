// Invitations into an account, on the suite's Redis with the test's clock: made with a one-time link, listed
// while pending, revoked; accepted once — by signing up with a password, or by the invited person signed in —
// and each refusal (a bad link, a weak password, an existing user, another person, a provider's e-mail, local
// sign-up off) leaves the link usable where it should, each reported as its invitation.accept outcome.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import type { Principal } from "../../src/identity/principal.js";
import { ACTOR } from "../helpers/actor.js";
import { identityEventsOf } from "../helpers/channels.js";
import { testIdentity } from "../helpers/identity.js";
import { openStore, type TestStore } from "../helpers/store.js";

const BASE = "https://gw.example.com";
const PASSWORD = "correct horse battery staple";
const DAY = 86_400_000;
const CORP = {
  id: "corp",
  name: "Corp",
  issuer: "https://id.corp.example",
  clientId: "gw",
  domains: ["corp.example"],
};
let store: TestStore;
let identity: Identity;
let recorded: ReturnType<typeof identityEventsOf>;

async function setUp(signIn: Record<string, unknown> = {}) {
  identity = testIdentity(store, {
    signIn: { invitations: { ttlDays: 2 }, providers: [CORP], ...signIn },
  });
  recorded = identityEventsOf(identity.events);
}
beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme" }, ACTOR);
  await setUp();
});
afterEach(() => {
  recorded.stop();
  store.close();
});

const tokenOf = (url: string) => url.split("/").at(-1) ?? "";
const invite = async (email: string, role = "member") =>
  identity.invitations.create("acme", { email, role }, ACTOR, BASE);

/** A person signed in with a session, by password or through a provider. */
async function signedIn(email: string, via: "password" | "corp" = "password"): Promise<Principal> {
  const user = (await identity.users.byEmail(email)) ?? (await identity.users.create({ email }, ACTOR));
  const method = via === "password" ? { via: "password" as const } : { via: "oidc" as const, provider: via };
  const { id } = await identity.sessions.start(user.id, method, { userAgent: "test", address: "192.0.2.1" });
  return identity.credentials.fromSession(id);
}

describe("Invitations.create, list and revoke", () => {
  it("make a pending invitation with a link under the base, listed until it expires", async () => {
    const { invitation, url } = await invite("Bob@Example.com", "owner");
    expect(invitation).toMatchObject({
      accountId: "acme",
      email: "bob@example.com",
      role: "owner",
      createdAt: store.clock.now(),
      expiresAt: store.clock.now() + 2 * DAY,
    });
    expect(invitation.id).toMatch(/^inv_/);
    expect(url).toMatch(/^https:\/\/gw\.example\.com\/#\/.+\/[\w-]{20,}$/);
    expect((await identity.invitations.describe(tokenOf(url))).id).toBe(invitation.id);
    expect((await identity.invitations.list("acme")).map((i) => i.id)).toEqual([invitation.id]);
    store.clock.advance(2 * DAY);
    expect(await identity.invitations.list("acme")).toEqual([]);
    const audit = await store.stores.audit.list("acme", 10);
    expect(audit[0]).toMatchObject({
      action: "invitation.create",
      details: { invitation_id: invitation.id, email: "bob@example.com", role: "owner" },
    });
  });

  it("refuse a bad e-mail, a bad role and an unknown account", async () => {
    await expect(invite("not-an-email")).rejects.toMatchObject({ status: 400 });
    await expect(invite("bob@example.com", "emperor")).rejects.toMatchObject({ status: 400 });
    await expect(
      identity.invitations.create("nowhere", { email: "bob@example.com", role: "member" }, ACTOR, BASE),
    ).rejects.toMatchObject({ code: "account_not_found" });
  });

  it("revoke one, so that its link no longer works, and refuse one that does not exist", async () => {
    const { invitation, url } = await invite("bob@example.com");
    await identity.invitations.revoke("acme", invitation.id, ACTOR);
    expect(await identity.invitations.list("acme")).toEqual([]);
    await expect(identity.invitations.describe(tokenOf(url))).rejects.toMatchObject({
      code: "invitation_invalid",
    });
    await expect(identity.invitations.revoke("acme", invitation.id, ACTOR)).rejects.toMatchObject({
      code: "invitation_not_found",
    });
    expect((await store.stores.audit.list("acme", 10))[0]).toMatchObject({ action: "invitation.revoke" });
  });
});

describe("Invitations.accept", () => {
  it("signs a new person up with a password, as a direct member, once", async () => {
    const { invitation, url } = await invite("bob@example.com", "owner");
    const accepted = await identity.invitations.accept(
      tokenOf(url),
      { password: PASSWORD, name: "Bob" },
      null,
    );
    expect(accepted.created).toBe(true);
    expect(accepted.user).toMatchObject({ email: "bob@example.com", name: "Bob" });
    expect(await (await signedIn("bob@example.com")).accountRole("acme")).toBe("owner");
    await expect(identity.passwords.signIn("bob@example.com", PASSWORD, "192.0.2.1")).resolves.toBeTruthy();
    expect(await identity.invitations.list("acme")).toEqual([]);
    await expect(
      identity.invitations.accept(tokenOf(url), { password: PASSWORD }, null),
    ).rejects.toMatchObject({
      code: "invitation_invalid",
    });
    expect(recorded.seen).toEqual([
      {
        event: "invitation.accept",
        outcome: "success",
        invitationId: invitation.id,
        accountId: "acme",
        userId: accepted.user.id,
      },
      { event: "invitation.accept", outcome: "invalid_link" },
    ]);
  });

  it("adds the membership of the invited person signed in, creating nobody", async () => {
    const { url } = await invite("bob@example.com", "viewer");
    const bob = await signedIn("bob@example.com");
    const accepted = await identity.invitations.accept(tokenOf(url), {}, bob);
    expect(accepted).toMatchObject({ created: false, user: { id: bob.user?.id } });
    expect(await bob.accountRole("acme")).toBe("viewer");
    expect((await store.stores.audit.list("acme", 10))[0]).toMatchObject({
      action: "invitation.accept",
      details: { email: "bob@example.com", role: "viewer" },
    });
  });

  it("refuses another signed-in person as refused, leaving the link for the invited one", async () => {
    const { url } = await invite("bob@example.com");
    const carol = await signedIn("carol@example.com");
    await expect(identity.invitations.accept(tokenOf(url), {}, carol)).rejects.toMatchObject({
      code: "forbidden",
    });
    expect(recorded.seen.at(-1)).toMatchObject({ outcome: "refused", userId: carol.user?.id });
    await expect(
      identity.invitations.accept(tokenOf(url), { password: PASSWORD }, null),
    ).resolves.toMatchObject({
      created: true,
    });
  });

  it("refuses a weak password without creating anyone or using the link", async () => {
    const { url } = await invite("bob@example.com");
    await expect(
      identity.invitations.accept(tokenOf(url), { password: "short" }, null),
    ).rejects.toMatchObject({
      code: "weak_password",
    });
    expect(recorded.seen.at(-1)).toMatchObject({ event: "invitation.accept", outcome: "weak_password" });
    expect(await identity.users.byEmail("bob@example.com")).toBeNull();
    await expect(
      identity.invitations.accept(tokenOf(url), { password: PASSWORD }, null),
    ).resolves.toBeTruthy();
  });

  it("asks an existing person to sign in first (user_exists)", async () => {
    await identity.users.create({ email: "bob@example.com" }, ACTOR);
    const { url } = await invite("bob@example.com");
    await expect(
      identity.invitations.accept(tokenOf(url), { password: PASSWORD }, null),
    ).rejects.toMatchObject({
      code: "user_exists",
    });
    expect(recorded.seen.at(-1)).toMatchObject({ outcome: "user_exists" });
  });

  it("refuses a sign-up where password sign-in is off", async () => {
    recorded.stop();
    await setUp({ local: { enabled: false } });
    const { url } = await invite("bob@example.com");
    await expect(
      identity.invitations.accept(tokenOf(url), { password: PASSWORD }, null),
    ).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringContaining("Password sign-in is off"),
    });
    expect(recorded.seen.at(-1)).toMatchObject({ outcome: "refused" });
    expect(await identity.users.byEmail("bob@example.com")).toBeNull();
  });

  it("takes a provider's e-mail only from its person signed in through that provider", async () => {
    const { invitation, url } = await invite("dan@corp.example");
    expect(identity.invitations.providerFor(invitation)?.id).toBe("corp");
    expect(identity.invitations.providerFor((await invite("bob@example.com")).invitation)).toBeNull();
    await expect(
      identity.invitations.accept(tokenOf(url), { password: PASSWORD }, null),
    ).rejects.toMatchObject({
      code: "provider_required",
      fields: { provider: "corp" },
    });
    const byPassword = await signedIn("dan@corp.example");
    await expect(identity.invitations.accept(tokenOf(url), {}, byPassword)).rejects.toMatchObject({
      code: "provider_required",
    });
    expect(recorded.seen.map((event) => event.outcome)).toEqual(["provider_required", "provider_required"]);
    const viaCorp = await signedIn("dan@corp.example", "corp");
    await expect(identity.invitations.accept(tokenOf(url), {}, viaCorp)).resolves.toMatchObject({
      created: false,
    });
  });

  it("refuses an expired link, a made-up one and one that is no string as invalid_link", async () => {
    const { url } = await invite("bob@example.com");
    store.clock.advance(2 * DAY);
    for (const token of [tokenOf(url), "x".repeat(43), 42])
      await expect(identity.invitations.accept(token, { password: PASSWORD }, null)).rejects.toMatchObject({
        code: "invitation_invalid",
      });
    expect(recorded.seen).toEqual(Array(3).fill({ event: "invitation.accept", outcome: "invalid_link" }));
  });
});
