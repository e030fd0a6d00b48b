// API tokens: made by a signed-in person with at most their own rights, shown once, and working only while
// their person is active and still holds the token's role; expiring; listed and revoked. On the suite's Redis.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import type { Principal } from "../../src/identity/principal.js";
import { ACTOR } from "../helpers/actor.js";
import { testIdentity } from "../helpers/identity.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let identity: Identity;
beforeEach(async () => {
  store = await openStore();
  identity = testIdentity(store, { signIn: { apiTokens: { maxDays: 90 } } });
  await store.accountService.create({ id: "acme" }, ACTOR);
  await store.accountService.create({ id: "other" }, ACTOR);
});
afterEach(() => store.close());

async function signedIn(
  email: string,
  operatorRole: "operator" | "operator-viewer" | null = null,
): Promise<Principal> {
  const user = await identity.users.create({ email, operatorRole }, ACTOR);
  const { id } = await identity.sessions.start(user.id, { via: "password" }, { userAgent: "", address: "" });
  return identity.credentials.fromSession(id);
}

const bearer = (value: string) => identity.credentials.fromBearer(`Bearer ${value}`);

describe("ApiTokens", () => {
  it("are made with a role the person holds, never above it", async () => {
    const owner = await signedIn("owner@example.com");
    await identity.grants.grant("acme", owner.user?.id as string, "direct", "member", ACTOR);
    const { value, record } = await identity.tokens.create(owner, {
      name: "ci",
      role: "viewer",
      accountId: "acme",
    });
    expect(value).toMatch(/^sk-tunnel-admin-[0-9a-f]{64}$/);
    expect(record).toMatchObject({ role: "viewer", accountId: "acme", hint: value.slice(-4) });
    expect(record.expiresAt - record.createdAt).toBe(90 * 86_400_000);
    await expect(
      identity.tokens.create(owner, { name: "x", role: "owner", accountId: "acme" }),
    ).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(
      identity.tokens.create(owner, { name: "x", role: "viewer", accountId: "other" }),
    ).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(identity.tokens.create(owner, { name: "x", role: "operator-viewer" })).rejects.toMatchObject(
      {
        code: "forbidden",
      },
    );
    await expect(
      identity.tokens.create(owner, { name: "x", role: "viewer", accountId: "acme", days: 91 }),
    ).rejects.toMatchObject({
      code: "invalid_request",
    });
    // An operator-viewer holds viewer in every account; an operator anything.
    const auditor = await signedIn("auditor@example.com", "operator-viewer");
    await expect(
      identity.tokens.create(auditor, { name: "r", role: "viewer", accountId: "other" }),
    ).resolves.toBeDefined();
    await expect(
      identity.tokens.create(auditor, { name: "w", role: "member", accountId: "other" }),
    ).rejects.toMatchObject({
      code: "forbidden",
    });
    // A token cannot make tokens.
    const token = await bearer(value);
    await expect(
      identity.tokens.create(token, { name: "y", role: "viewer", accountId: "acme" }),
    ).rejects.toMatchObject({
      code: "forbidden",
    });
  });

  it("hold their role only while their person does, is active, and the token has not expired", async () => {
    const person = await signedIn("member@example.com");
    const userId = person.user?.id as string;
    await identity.grants.grant("acme", userId, "direct", "member", ACTOR);
    const { value } = await identity.tokens.create(person, {
      name: "ci",
      role: "member",
      accountId: "acme",
      days: 1,
    });
    const token = await bearer(value);
    expect(token.actor).toMatchObject({ kind: "token", userId, tokenName: "ci" });
    expect(await token.accountRole("acme")).toBe("member");
    expect(await token.accountRole("other")).toBeNull();
    await identity.grants.grant("acme", userId, "direct", "viewer", ACTOR);
    expect(await (await bearer(value)).accountRole("acme")).toBeNull();
    await identity.grants.grant("acme", userId, "direct", "owner", ACTOR);
    expect(await (await bearer(value)).accountRole("acme")).toBe("member");
    await identity.users.disable(userId, ACTOR);
    await expect(bearer(value)).rejects.toMatchObject({ code: "user_disabled" });
    await identity.users.enable(userId, ACTOR);
    store.clock.advance(86_400_000);
    await expect(bearer(value)).rejects.toMatchObject({ code: "admin_unauthorized", message: /expired/ });
  });

  it("are listed and revoked by their person, stopping at once, each change in the audit logs", async () => {
    const person = await signedIn("lead@example.com");
    const userId = person.user?.id as string;
    await identity.grants.grant("acme", userId, "direct", "owner", ACTOR);
    const { value, record } = await identity.tokens.create(person, {
      name: "deploy",
      role: "owner",
      accountId: "acme",
    });
    expect((await identity.tokens.list(userId)).map((t) => t.name)).toEqual(["deploy"]);
    await identity.tokens.revoke(userId, record.id, person.actor);
    await expect(bearer(value)).rejects.toMatchObject({ code: "admin_unauthorized" });
    expect(await identity.tokens.list(userId)).toEqual([]);
    await expect(identity.tokens.revoke(userId, record.id, person.actor)).rejects.toMatchObject({
      code: "token_not_found",
    });
    const [revoked, created] = await store.stores.audit.listUser(userId, 2);
    expect([revoked?.action, created?.action]).toEqual(["token.revoke", "token.create"]);
    expect(revoked?.by).toMatchObject({ user_id: userId, via: "password" });
    const account = await store.accountService.audit("acme", 2);
    expect(account.map((e) => e.action)).toEqual(["token.revoke", "token.create"]);
  });
});
