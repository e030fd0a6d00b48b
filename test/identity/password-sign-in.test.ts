// Signing in with a password and setting one with a one-time link, on the suite's Redis with the test's clock:
// a wrong password and an unknown e-mail get the same refusal, both counted towards a lockout; a locked e-mail
// is refused before any password is checked; a disabled person is refused; a link sets a password once. Each
// outcome is checked for its identity event and, for a known person, their audit log.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import { ACTOR } from "../helpers/actor.js";
import { identityEventsOf } from "../helpers/channels.js";
import { testIdentity } from "../helpers/identity.js";
import { openStore, type TestStore } from "../helpers/store.js";

const PASSWORD = "correct horse battery staple";
const ADDRESS = "192.0.2.7";
let store: TestStore;
let identity: Identity;
let recorded: ReturnType<typeof identityEventsOf>;
let userId: string;
beforeEach(async () => {
  store = await openStore();
  identity = testIdentity(store, {
    signIn: {
      local: { enabled: true, passwordLinkHours: 1 },
      attempts: { maxFailures: 3, windowSeconds: 60, firstLockSeconds: 30, longestLockSeconds: 600 },
    },
  });
  userId = (await identity.users.create({ email: "ann@example.com", name: "Ann", password: PASSWORD }, ACTOR))
    .id;
  recorded = identityEventsOf(identity.events);
});
afterEach(() => {
  recorded.stop();
  store.close();
});

const actions = async () =>
  (await store.stores.audit.listUser(userId, 50)).map((entry) => [entry.action, entry.details]).reverse();

describe("PasswordSignIn.signIn", () => {
  it("returns the person whose e-mail and password these are, whatever the e-mail's case", async () => {
    const user = await identity.passwords.signIn("Ann@Example.com", PASSWORD, ADDRESS);
    expect(user.id).toBe(userId);
    // The success is reported where the session starts, not here.
    expect(recorded.seen).toEqual([]);
  });

  it("refuses a wrong password and an unknown e-mail alike with 401 sign_in_failed, reported apart", async () => {
    await expect(
      identity.passwords.signIn("ann@example.com", "wrong password!", ADDRESS),
    ).rejects.toMatchObject({ code: "sign_in_failed", status: 401 });
    await expect(identity.passwords.signIn("nobody@example.com", PASSWORD, ADDRESS)).rejects.toMatchObject({
      code: "sign_in_failed",
      status: 401,
    });
    expect(recorded.seen).toEqual([
      { event: "sign_in.password", outcome: "wrong_password", userId, address: ADDRESS },
      { event: "sign_in.password", outcome: "unknown_user", email: "nobody@example.com", address: ADDRESS },
    ]);
    // Only the known person has a log to put the failure in.
    expect(await actions()).toEqual([
      ["user.create", expect.anything()],
      ["user.sign_in_failed", { reason: "wrong_password", address: ADDRESS }],
    ]);
  });

  it("refuses an e-mail that is no e-mail, and a password that is no string, before counting anything", async () => {
    await expect(identity.passwords.signIn("not-an-email", PASSWORD, ADDRESS)).rejects.toMatchObject({
      status: 400,
    });
    await expect(identity.passwords.signIn("ann@example.com", 42, ADDRESS)).rejects.toMatchObject({
      code: "invalid_request",
    });
    expect(recorded.seen).toEqual([]);
  });

  it("locks the e-mail after too many failures, reports and audits the lockout, then refuses even the right password with 429", async () => {
    for (let i = 0; i < 3; i++)
      await expect(
        identity.passwords.signIn("ann@example.com", "wrong password!", `10.0.0.${i}`),
      ).rejects.toMatchObject({ code: "sign_in_failed" });
    expect(recorded.seen.at(-1)).toEqual({
      event: "lockout",
      outcome: "email",
      userId,
      address: "10.0.0.2",
      detail: "30 s",
    });
    await expect(identity.passwords.signIn("ann@example.com", PASSWORD, "10.0.1.1")).rejects.toMatchObject({
      code: "too_many_attempts",
      status: 429,
    });
    expect(recorded.seen.at(-1)).toEqual({
      event: "sign_in.password",
      outcome: "locked",
      email: "ann@example.com",
      address: "10.0.1.1",
    });
    // The refused try while locked is neither counted nor audited.
    expect((await actions()).map(([action]) => action)).toEqual([
      "user.create",
      "user.sign_in_failed",
      "user.sign_in_failed",
      "user.sign_in_failed",
      "user.lockout",
    ]);
    expect((await actions()).at(-1)).toEqual(["user.lockout", { seconds: 30, address: "10.0.0.2" }]);
  });

  it("locks an address that tries many e-mails, reporting the address's lockout", async () => {
    for (let i = 0; i < 3; i++)
      await expect(
        identity.passwords.signIn(`nobody${i}@example.com`, PASSWORD, ADDRESS),
      ).rejects.toMatchObject({
        code: "sign_in_failed",
      });
    expect(recorded.seen.at(-1)).toEqual({
      event: "lockout",
      outcome: "address",
      address: ADDRESS,
      detail: "30 s",
    });
    await expect(identity.passwords.signIn("ann@example.com", PASSWORD, ADDRESS)).rejects.toMatchObject({
      code: "too_many_attempts",
    });
    await expect(identity.passwords.signIn("ann@example.com", PASSWORD, "192.0.2.8")).resolves.toMatchObject({
      id: userId,
    });
  });

  it("lets a locked-out person in once the lock is over, unlocking their e-mail and saying so", async () => {
    for (let i = 0; i < 3; i++)
      await identity.passwords.signIn("ann@example.com", "wrong password!", `10.0.0.${i}`).catch(() => {});
    store.clock.advance(30_001);
    await identity.passwords.signIn("ann@example.com", PASSWORD, "10.0.1.1");
    expect(recorded.seen.at(-1)).toEqual({
      event: "unlock",
      outcome: "signed_in",
      userId,
      address: "10.0.1.1",
    });
    expect((await actions()).at(-1)).toEqual(["user.unlock", { reason: "signed_in" }]);
  });

  it("refuses a disabled person with the right password as user_disabled, reported and audited", async () => {
    await identity.users.disable(userId, ACTOR);
    await expect(identity.passwords.signIn("ann@example.com", PASSWORD, ADDRESS)).rejects.toMatchObject({
      code: "user_disabled",
    });
    expect(recorded.seen).toEqual([
      { event: "sign_in.password", outcome: "user_disabled", userId, address: ADDRESS },
    ]);
    expect((await actions()).at(-1)).toEqual([
      "user.sign_in_failed",
      { reason: "user_disabled", address: ADDRESS },
    ]);
  });

  it("reports a wrong current password given to change it as password.change, never as unknown_user", async () => {
    await expect(
      identity.passwords.signIn("ann@example.com", "wrong password!", ADDRESS, "password.change"),
    ).rejects.toMatchObject({ code: "sign_in_failed" });
    await expect(
      identity.passwords.signIn("nobody@example.com", "wrong password!", ADDRESS, "password.change"),
    ).rejects.toMatchObject({ code: "sign_in_failed" });
    expect(recorded.seen).toEqual([
      { event: "password.change", outcome: "wrong_password", userId, address: ADDRESS },
      { event: "password.change", outcome: "wrong_password", email: "nobody@example.com", address: ADDRESS },
    ]);
  });

  it("does not report a disabled person's confirmation as a sign-in, but refuses and audits it", async () => {
    await identity.users.disable(userId, ACTOR);
    await expect(
      identity.passwords.signIn("ann@example.com", PASSWORD, ADDRESS, "password.change"),
    ).rejects.toMatchObject({ code: "user_disabled" });
    expect(recorded.seen).toEqual([]);
    expect((await actions()).at(-1)?.[0]).toBe("user.sign_in_failed");
  });
});

describe("PasswordSignIn.unlock", () => {
  it("lifts a lockout for an operator, reports and audits it, and says false when there was none", async () => {
    const user = await identity.users.find(userId);
    expect(await identity.passwords.unlock(user, ACTOR)).toBe(false);
    expect(recorded.seen).toEqual([]);
    for (let i = 0; i < 3; i++)
      await identity.passwords.signIn("ann@example.com", "wrong password!", `10.0.0.${i}`).catch(() => {});
    expect(await identity.passwords.unlock(user, ACTOR)).toBe(true);
    expect(recorded.seen.at(-1)).toEqual({ event: "unlock", outcome: "operator", userId });
    expect((await actions()).at(-1)).toEqual(["user.unlock", { reason: "operator" }]);
    await expect(identity.passwords.signIn("ann@example.com", PASSWORD, "10.0.1.1")).resolves.toMatchObject({
      id: userId,
    });
  });
});

describe("PasswordSignIn password links", () => {
  const NEW_PASSWORD = "a brand new passphrase";
  const tokenOf = (url: string) => url.split("/").at(-1)?.split("=").at(-1) ?? "";

  it("are URLs under the base that set the password once, reported as success", async () => {
    const url = await identity.passwords.passwordLink(userId, "https://gw.example.com");
    expect(url.startsWith("https://gw.example.com/")).toBe(true);
    const token = tokenOf(url);
    expect((await identity.passwords.usePasswordLink(token, NEW_PASSWORD)).id).toBe(userId);
    await expect(identity.passwords.signIn("ann@example.com", NEW_PASSWORD, ADDRESS)).resolves.toMatchObject({
      id: userId,
    });
    await expect(identity.passwords.usePasswordLink(token, "yet another passphrase")).rejects.toMatchObject({
      code: "password_link_invalid",
    });
    expect(recorded.seen).toEqual([
      { event: "password.link", outcome: "success", userId },
      { event: "password.link", outcome: "invalid_link" },
    ]);
  });

  it("refuse a weak password without using the link, which then works with a good one", async () => {
    const token = tokenOf(await identity.passwords.passwordLink(userId, "https://gw.example.com"));
    await expect(identity.passwords.usePasswordLink(token, "short")).rejects.toMatchObject({ status: 400 });
    expect(recorded.seen).toEqual([{ event: "password.link", outcome: "weak_password", userId }]);
    await expect(identity.passwords.usePasswordLink(token, NEW_PASSWORD)).resolves.toMatchObject({
      id: userId,
    });
  });

  it("stop working when their time is up", async () => {
    const token = tokenOf(await identity.passwords.passwordLink(userId, "https://gw.example.com"));
    store.clock.advance(3_600_000);
    await expect(identity.passwords.usePasswordLink(token, NEW_PASSWORD)).rejects.toMatchObject({
      code: "password_link_invalid",
    });
    expect(recorded.seen).toEqual([{ event: "password.link", outcome: "invalid_link" }]);
  });

  it("refuse a token that is no string, or made up", async () => {
    await expect(identity.passwords.usePasswordLink(42, NEW_PASSWORD)).rejects.toMatchObject({
      code: "password_link_invalid",
    });
    await expect(identity.passwords.usePasswordLink("x".repeat(43), NEW_PASSWORD)).rejects.toMatchObject({
      code: "password_link_invalid",
    });
  });

  it("refuse a disabled person's link, leaving their password as it was", async () => {
    const token = tokenOf(await identity.passwords.passwordLink(userId, "https://gw.example.com"));
    await identity.users.disable(userId, ACTOR);
    await expect(identity.passwords.usePasswordLink(token, NEW_PASSWORD)).rejects.toMatchObject({
      code: "user_disabled",
    });
    expect(recorded.seen).toEqual([{ event: "password.link", outcome: "user_disabled", userId }]);
    await identity.users.enable(userId, ACTOR);
    await expect(identity.passwords.signIn("ann@example.com", PASSWORD, ADDRESS)).resolves.toMatchObject({
      id: userId,
    });
  });

  it("refuse a link whose person is gone", async () => {
    const token = tokenOf(await identity.passwords.passwordLink("usr_gone", "https://gw.example.com"));
    await expect(identity.passwords.usePasswordLink(token, NEW_PASSWORD)).rejects.toMatchObject({
      code: "password_link_invalid",
    });
    expect(recorded.seen).toEqual([{ event: "password.link", outcome: "invalid_link" }]);
  });
});
