// The principal behind each kind of credential and what it may do, on the suite's Redis: nobody, the legacy
// admin and account tokens, a person's session (roles read afresh at each call, several grants adding up to
// the highest), an API token holding its role only while its person does; and authorize's refusal for each
// case, naming who may not do what.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import {
  anonymous,
  authorize,
  holdsInAccount,
  legacyAccount,
  legacyAdmin,
  type Principal,
  rolesIn,
} from "../../src/identity/principal.js";
import { ACTOR } from "../helpers/actor.js";
import { testIdentity } from "../helpers/identity.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let identity: Identity;
beforeEach(async () => {
  store = await openStore();
  identity = testIdentity(store, {
    signIn: { providers: [{ id: "corp", name: "Corp", issuer: "https://id.corp.example", clientId: "gw" }] },
  });
  await store.accountService.create({ id: "acme" }, ACTOR);
  await store.accountService.create({ id: "other" }, ACTOR);
});
afterEach(() => store.close());

async function signedIn(
  email: string,
  options: { operatorRole?: "operator" | "operator-viewer"; via?: "password" | "corp"; name?: string } = {},
): Promise<Principal> {
  const user = await identity.users.create(
    { email, name: options.name, operatorRole: options.operatorRole ?? null },
    ACTOR,
  );
  const method =
    options.via === "corp" ? { via: "oidc" as const, provider: "corp" } : { via: "password" as const };
  const { id } = await identity.sessions.start(user.id, method, { userAgent: "", address: "" });
  return identity.credentials.fromSession(id);
}
const idOf = (principal: Principal) => principal.user?.id as string;

describe("the legacy principals", () => {
  it("nobody holds nothing, and asking for their actor is a bug that throws", async () => {
    const nobody = anonymous();
    expect(nobody.operatorRole).toBeNull();
    expect(await nobody.accountRole("acme")).toBeNull();
    expect(await nobody.accounts()).toEqual(new Map());
    expect(() => nobody.actor).toThrow(/nobody signed in/);
  });

  it("the admin token is an operator in no account of its own; an account's token owns that account only", async () => {
    const admin = legacyAdmin();
    expect([admin.operatorRole, admin.actor, await admin.accountRole("acme")]).toEqual([
      "operator",
      { kind: "admin" },
      null,
    ]);
    const account = legacyAccount("acme");
    expect(account.actor).toEqual({ kind: "account", accountId: "acme" });
    expect(await account.accountRole("acme")).toBe("owner");
    expect(await account.accountRole("other")).toBeNull();
    expect(await account.accounts()).toEqual(new Map([["acme", "owner"]]));
    expect(await rolesIn(admin, "acme")).toEqual(["operator"]);
    expect(await rolesIn(account, "acme")).toEqual(["owner"]);
  });
});

describe("a session's principal", () => {
  it("acts as its person, saying how they signed in", async () => {
    const ann = await signedIn("ann@example.com", { name: "Ann" });
    expect(ann.actor).toEqual({ kind: "user", userId: idOf(ann), name: "Ann", via: "password" });
    const dan = await signedIn("dan@example.com", { name: "Dan", via: "corp" });
    expect(dan.actor).toEqual({
      kind: "user",
      userId: idOf(dan),
      name: "Dan",
      via: "oidc",
      provider: "corp",
    });
  });

  it("reads the person's account roles afresh at each call, the highest of their grants counting", async () => {
    const ann = await signedIn("ann@example.com");
    expect(await ann.accountRole("acme")).toBeNull();
    await identity.grants.grant("acme", idOf(ann), "direct", "viewer", ACTOR);
    await identity.grants.grant("acme", idOf(ann), "provider:corp", "owner", ACTOR);
    await identity.grants.grant("other", idOf(ann), "direct", "member", ACTOR);
    expect(await ann.accountRole("acme")).toBe("owner");
    expect(await ann.accounts()).toEqual(
      new Map([
        ["acme", "owner"],
        ["other", "member"],
      ]),
    );
    await identity.grants.grant("acme", idOf(ann), "provider:corp", null, ACTOR);
    expect(await ann.accountRole("acme")).toBe("viewer");
  });
});

describe("an API token's principal", () => {
  it("holds its own role, lower than its person's, and nothing in another account", async () => {
    const ann = await signedIn("ann@example.com");
    await identity.grants.grant("acme", idOf(ann), "direct", "owner", ACTOR);
    const { value } = await identity.tokens.create(ann, { name: "ci", role: "viewer", accountId: "acme" });
    const token = await identity.credentials.fromBearer(`Bearer ${value}`);
    expect(token.actor).toMatchObject({ kind: "token", userId: idOf(ann), tokenName: "ci" });
    expect(await token.accountRole("acme")).toBe("viewer");
    expect(await token.accountRole("other")).toBeNull();
    expect(await token.accounts()).toEqual(new Map([["acme", "viewer"]]));
    expect(token.operatorRole).toBeNull();
  });

  it("holds nothing once its person no longer holds its role", async () => {
    const ann = await signedIn("ann@example.com");
    await identity.grants.grant("acme", idOf(ann), "direct", "member", ACTOR);
    const { value } = await identity.tokens.create(ann, { name: "ci", role: "member", accountId: "acme" });
    const token = await identity.credentials.fromBearer(`Bearer ${value}`);
    await identity.grants.grant("acme", idOf(ann), "direct", "viewer", ACTOR);
    expect(await token.accountRole("acme")).toBeNull();
    expect(await token.accounts()).toEqual(new Map());
    await expect(authorize(token, "account.read", "acme")).rejects.toMatchObject({
      code: "forbidden",
      message: "The API token ci has no role in account acme.",
    });
  });

  it("holds an operator role only while its person does, and no account role", async () => {
    const op = await signedIn("op@example.com", { operatorRole: "operator" });
    const { value } = await identity.tokens.create(op, { name: "ops", role: "operator-viewer" });
    const token = await identity.credentials.fromBearer(`Bearer ${value}`);
    expect(token.operatorRole).toBe("operator-viewer");
    expect(await token.accounts()).toEqual(new Map());
    await identity.grants.grantOperator(idOf(op), "direct", null, ACTOR);
    const again = await identity.credentials.fromBearer(`Bearer ${value}`);
    expect(again.operatorRole).toBeNull();
  });
});

describe("holdsInAccount", () => {
  it("lets an operator do anything, an operator-viewer only view, and an account role at least its own", () => {
    expect(holdsInAccount("operator", null, "owner")).toBe(true);
    expect(holdsInAccount("operator-viewer", null, "viewer")).toBe(true);
    expect(holdsInAccount("operator-viewer", null, "member")).toBe(false);
    expect(holdsInAccount(null, "owner", "member")).toBe(true);
    expect(holdsInAccount(null, "member", "member")).toBe(true);
    expect(holdsInAccount(null, "viewer", "member")).toBe(false);
    expect(holdsInAccount(null, null, "viewer")).toBe(false);
  });
});

describe("authorize", () => {
  it("lets anybody sign in and see who they are", async () => {
    await expect(authorize(anonymous(), "public")).resolves.toBeUndefined();
    await expect(authorize(anonymous(), "me")).resolves.toBeUndefined();
  });

  it("keeps a person's own management to a signed-in person: no token, however high", async () => {
    await expect(authorize(legacyAdmin(), "me.manage")).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringMatching(/^Only a signed-in person may .*: not a token\.$/),
    });
    await expect(authorize(await signedIn("ann@example.com"), "me.manage")).resolves.toBeUndefined();
  });

  it("keeps global actions to the operator roles they name", async () => {
    await expect(authorize(legacyAdmin(), "accounts.create")).resolves.toBeUndefined();
    const viewer = await signedIn("view@example.com", { operatorRole: "operator-viewer", name: "Vic" });
    await expect(authorize(viewer, "overview.read")).resolves.toBeUndefined();
    await expect(authorize(viewer, "accounts.create")).rejects.toMatchObject({
      message: "Vic may not create an account.",
    });
    await expect(authorize(anonymous(), "accounts.create")).rejects.toMatchObject({
      message: "Nobody signed in may not create an account.",
    });
    await expect(authorize(legacyAccount("acme"), "accounts.create")).rejects.toMatchObject({
      message: "The token of account acme may not create an account.",
    });
  });

  it("tells an account's token it cannot reach another account, or cannot do what only an operator does", async () => {
    const token = legacyAccount("acme");
    await expect(authorize(token, "keys.write", "acme")).resolves.toBeUndefined();
    await expect(authorize(token, "account.read", "other")).rejects.toMatchObject({
      message: "This token belongs to account acme and cannot access account other.",
    });
    await expect(authorize(token, "account.topup", "acme")).rejects.toMatchObject({
      message: "This token belongs to account acme and cannot top up an account.",
    });
  });

  it("refuses a person with no role in the account, and one whose role is too low naming what they hold", async () => {
    const ann = await signedIn("ann@example.com", { name: "Ann" });
    await expect(authorize(ann, "account.read", "acme")).rejects.toMatchObject({
      message: "Ann has no role in account acme.",
    });
    await identity.grants.grant("acme", idOf(ann), "direct", "viewer", ACTOR);
    await expect(authorize(ann, "account.read", "acme")).resolves.toBeUndefined();
    await expect(authorize(ann, "keys.write", "acme")).rejects.toMatchObject({
      code: "forbidden",
      status: 403,
      message:
        "Ann (viewer in account acme) may not create, change, rotate, disable, enable or revoke account acme's keys.",
    });
  });

  it("counts an operator-viewer's role in every account beside an account role", async () => {
    const vic = await signedIn("vic@example.com", { operatorRole: "operator-viewer", name: "Vic" });
    await identity.grants.grant("acme", idOf(vic), "direct", "member", ACTOR);
    expect(await rolesIn(vic, "acme")).toEqual(["operator-viewer", "member"]);
    await expect(authorize(vic, "keys.write", "acme")).resolves.toBeUndefined();
    await expect(authorize(vic, "keys.write", "other")).rejects.toMatchObject({
      message:
        "Vic (operator-viewer in account other) may not create, change, rotate, disable, enable or revoke account other's keys.",
    });
  });
});
