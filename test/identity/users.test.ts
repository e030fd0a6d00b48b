// People on the suite's Redis with the test's clock: created all or nothing (every input checked before
// anything is written), found by id or e-mail, disabled (their sessions ended and reported) and enabled,
// renamed and re-addressed with what changed in their audit log, given a password, and their sign-ins recorded.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import { ACTOR } from "../helpers/actor.js";
import { identityEventsOf } from "../helpers/channels.js";
import { testIdentity } from "../helpers/identity.js";
import { openStore, type TestStore } from "../helpers/store.js";

const PASSWORD = "correct horse battery staple";
let store: TestStore;
let identity: Identity;
let recorded: ReturnType<typeof identityEventsOf>;
beforeEach(async () => {
  store = await openStore();
  identity = testIdentity(store);
  recorded = identityEventsOf(identity.events);
  await store.accountService.create({ id: "acme" }, ACTOR);
});
afterEach(() => {
  recorded.stop();
  store.close();
});

const audit = async (userId: string) =>
  (await store.stores.audit.listUser(userId, 50)).map((entry) => [entry.action, entry.details]).reverse();

describe("Users.create", () => {
  it("makes an active person named after their e-mail by default, with a first membership and a password", async () => {
    const user = await identity.users.create(
      { email: "Ann@Example.com", password: PASSWORD, account: { accountId: "acme", role: "member" } },
      ACTOR,
    );
    expect(user).toMatchObject({
      email: "ann@example.com",
      name: "ann@example.com",
      status: "active",
      createdAt: store.clock.now(),
    });
    expect(user.id).toMatch(/^usr_/);
    expect(await identity.grants.member("acme", user.id)).toMatchObject({
      role: "member",
      grants: { direct: "member" },
    });
    await expect(identity.passwords.signIn("ann@example.com", PASSWORD, "192.0.2.1")).resolves.toMatchObject({
      id: user.id,
    });
    expect(await audit(user.id)).toEqual([
      ["user.create", { email: "ann@example.com", name: "ann@example.com", password: true }],
    ]);
  });

  it("records a person signing up as the actor of their own creation, an operator role among the details", async () => {
    const self = await identity.users.create(
      { email: "bob@example.com", name: "Bob" },
      { self: { via: "password" } },
    );
    const entry = (await store.stores.audit.listUser(self.id, 1))[0];
    expect(entry).toMatchObject({
      action: "user.create",
      details: { email: "bob@example.com", name: "Bob" },
    });
    expect(JSON.stringify(entry)).toContain(self.id);
    const op = await identity.users.create({ email: "op@example.com", operatorRole: "operator" }, ACTOR);
    expect((await audit(op.id))[0]).toEqual([
      "user.create",
      { email: "op@example.com", name: "op@example.com", operator: "operator" },
    ]);
  });

  it("writes nothing when any input is refused: e-mail, role, account, password, or an e-mail already taken", async () => {
    await identity.users.create({ email: "ann@example.com" }, ACTOR);
    const before = await store.allKeys();
    await expect(identity.users.create({ email: "nope" }, ACTOR)).rejects.toMatchObject({ status: 400 });
    await expect(
      identity.users.create(
        { email: "bob@example.com", account: { accountId: "acme", role: "emperor" } },
        ACTOR,
      ),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      identity.users.create(
        { email: "bob@example.com", account: { accountId: "nowhere", role: "member" } },
        ACTOR,
      ),
    ).rejects.toMatchObject({ code: "account_not_found" });
    await expect(
      identity.users.create({ email: "bob@example.com", password: "short" }, ACTOR),
    ).rejects.toMatchObject({
      code: "weak_password",
    });
    await expect(identity.users.create({ email: "ANN@example.com" }, ACTOR)).rejects.toMatchObject({
      code: "user_exists",
    });
    expect(await store.allKeys()).toEqual(before);
  });
});

describe("Users.find", () => {
  it("finds a person by id or by e-mail, and refuses one there is not", async () => {
    const ann = await identity.users.create({ email: "ann@example.com" }, ACTOR);
    expect((await identity.users.find(ann.id)).email).toBe("ann@example.com");
    expect((await identity.users.find("ANN@example.com")).id).toBe(ann.id);
    await expect(identity.users.find("nobody@example.com")).rejects.toMatchObject({ code: "user_not_found" });
    await expect(identity.users.find(`usr_${"x".repeat(20)}`)).rejects.toMatchObject({
      code: "user_not_found",
    });
    await expect(identity.users.find("usr_short")).rejects.toMatchObject({ status: 400 });
    await expect(identity.users.find(42)).rejects.toMatchObject({ status: 400 });
    expect(await identity.users.get("usr_nobody")).toBeNull();
    expect(await identity.users.byEmail("nobody@example.com")).toBeNull();
  });
});

describe("Users.disable and enable", () => {
  it("ends a disabled person's sessions at once and reports how many; enabling lets them back", async () => {
    const ann = await identity.users.create({ email: "ann@example.com" }, ACTOR);
    const client = { userAgent: "", address: "" };
    const first = await identity.sessions.start(ann.id, { via: "password" }, client);
    await identity.sessions.start(ann.id, { via: "password" }, client);
    expect((await identity.users.disable(ann.id, ACTOR)).status).toBe("disabled");
    await expect(identity.sessions.resume(first.id)).rejects.toBeTruthy();
    expect(recorded.seen).toEqual([
      { event: "session.revoke", outcome: "user_disabled", userId: ann.id, count: 2 },
    ]);
    await identity.users.disable(ann.id, ACTOR);
    expect(recorded.seen).toHaveLength(1); // no sessions left, nothing to report
    expect((await identity.users.enable(ann.id, ACTOR)).status).toBe("active");
    expect((await audit(ann.id)).map(([action]) => action)).toEqual([
      "user.create",
      "user.disable",
      "user.disable",
      "user.enable",
    ]);
    await expect(identity.users.disable("usr_nobody", ACTOR)).rejects.toMatchObject({
      code: "user_not_found",
    });
  });
});

describe("Users.update", () => {
  it("changes nothing and audits nothing when nothing differs", async () => {
    const ann = await identity.users.create({ email: "ann@example.com", name: "Ann" }, ACTOR);
    expect(await identity.users.update(ann.id, { name: "Ann", email: "ann@example.com" }, ACTOR)).toEqual(
      ann,
    );
    expect(await identity.users.update(ann.id, {}, ACTOR)).toEqual(ann);
    expect(await audit(ann.id)).toHaveLength(1);
  });

  it("renames, re-addresses or both, auditing once with the previous values; the old e-mail is free again", async () => {
    const ann = await identity.users.create({ email: "ann@example.com", name: "Ann" }, ACTOR);
    await identity.users.update(ann.id, { name: "Annie" }, ACTOR);
    await identity.users.update(ann.id, { email: "annie@example.com" }, ACTOR);
    const both = await identity.users.update(ann.id, { name: "Anne", email: "anne@example.com" }, ACTOR);
    expect(both).toMatchObject({ name: "Anne", email: "anne@example.com" });
    expect((await audit(ann.id)).slice(1)).toEqual([
      ["user.update", { email: "ann@example.com", name: "Annie", previous_name: "Ann" }],
      ["user.update", { email: "annie@example.com", previous_email: "ann@example.com" }],
      [
        "user.update",
        {
          email: "anne@example.com",
          name: "Anne",
          previous_name: "Annie",
          previous_email: "annie@example.com",
        },
      ],
    ]);
    expect((await identity.users.find("anne@example.com")).id).toBe(ann.id);
    expect(await identity.users.byEmail("ann@example.com")).toBeNull();
    await expect(identity.users.create({ email: "ann@example.com" }, ACTOR)).resolves.toBeTruthy();
  });

  it("refuses an e-mail another person has, changing nothing", async () => {
    const ann = await identity.users.create({ email: "ann@example.com", name: "Ann" }, ACTOR);
    await identity.users.create({ email: "bob@example.com" }, ACTOR);
    await expect(
      identity.users.update(ann.id, { name: "Annie", email: "bob@example.com" }, ACTOR),
    ).rejects.toMatchObject({ status: 409 });
    expect(await identity.users.get(ann.id)).toMatchObject({ name: "Ann", email: "ann@example.com" });
  });
});

describe("Users passwords", () => {
  it("sets a password that passes the rules, audited; refuses a weak one and an unknown person", async () => {
    const ann = await identity.users.create({ email: "ann@example.com" }, ACTOR);
    await expect(identity.users.checkPassword("short")).rejects.toMatchObject({ code: "weak_password" });
    expect(await identity.users.checkPassword(PASSWORD)).toBe(PASSWORD);
    await expect(identity.users.setPassword(ann.id, "short", ACTOR)).rejects.toMatchObject({
      code: "weak_password",
    });
    await expect(identity.users.setPassword("usr_nobody", PASSWORD, ACTOR)).rejects.toMatchObject({
      code: "user_not_found",
    });
    await identity.users.setPassword(ann.id, PASSWORD, ACTOR);
    await expect(identity.passwords.signIn("ann@example.com", PASSWORD, "192.0.2.1")).resolves.toBeTruthy();
    expect((await audit(ann.id)).at(-1)).toEqual(["user.password", {}]);
  });
});

describe("Users.signedIn", () => {
  it("records when and from where, adding a provider to the person's list only the first time", async () => {
    const ann = await identity.users.create({ email: "ann@example.com" }, ACTOR);
    store.clock.advance(1000);
    await identity.users.signedIn(ann, { via: "oidc", provider: "corp" }, "192.0.2.1");
    const once = await identity.users.find(ann.id);
    expect(once).toMatchObject({ lastSignInAt: store.clock.now(), providers: ["corp"] });
    await identity.users.signedIn(once, { via: "oidc", provider: "corp" }, "192.0.2.2");
    await identity.users.signedIn(once, { via: "password" }, "192.0.2.3");
    expect((await identity.users.find(ann.id)).providers).toEqual(["corp"]);
    expect((await audit(ann.id)).slice(1)).toEqual([
      ["user.sign_in", { address: "192.0.2.1" }],
      ["user.sign_in", { address: "192.0.2.2" }],
      ["user.sign_in", { address: "192.0.2.3" }],
    ]);
  });
});
