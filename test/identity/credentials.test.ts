// Who calls the admin API: the operator's admin token (an operator), an account's dashboard token (owner of
// that account only, looked up by hash at every call so that a revoked one stops at once), a person's API
// token (its own role while its person holds it), a person's session, or nobody. On the suite's Redis.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Credentials } from "../../src/identity/credentials.js";
import type { Identity } from "../../src/identity/identity.js";
import { authorize } from "../../src/identity/principal.js";
import { ACTOR } from "../helpers/actor.js";
import { testIdentity } from "../helpers/identity.js";
import { openStore, type TestStore } from "../helpers/store.js";

const ADMIN = "admin-token-0123456789";

let store: TestStore;
let identity: Identity;
let credentials: Credentials;
beforeEach(async () => {
  store = await openStore();
  identity = testIdentity(store, { adminToken: ADMIN });
  credentials = identity.credentials;
  await store.accountService.create({ id: "acme" }, ACTOR);
  await store.accountService.create({ id: "other" }, ACTOR);
});
afterEach(() => store.close());

describe("fromBearer", () => {
  it("knows the operator by the admin token, and an account's owner by its dashboard token", async () => {
    const admin = await credentials.fromBearer(`Bearer ${ADMIN}`);
    expect([admin.credential, admin.operatorRole, admin.actor]).toEqual([
      { kind: "admin-token" },
      "operator",
      { kind: "admin" },
    ]);
    expect((await credentials.fromBearer(`bearer   ${ADMIN}`)).operatorRole).toBe("operator");
    const { token } = await store.accountService.createToken("acme", ACTOR);
    const account = await credentials.fromBearer(`Bearer ${token}`);
    expect([account.credential, account.operatorRole, account.actor]).toEqual([
      { kind: "account-token", accountId: "acme" },
      null,
      { kind: "account", accountId: "acme" },
    ]);
    expect(await account.accountRole("acme")).toBe("owner");
    expect(await account.accountRole("other")).toBeNull();
  });

  it("refuses a missing or malformed Authorization header with 401 admin_unauthorized", async () => {
    for (const header of [undefined, "", ADMIN, `Basic ${ADMIN}`, "Bearer", "Bearer a b"]) {
      await expect(credentials.fromBearer(header), String(header)).rejects.toMatchObject({
        code: "admin_unauthorized",
        status: 401,
      });
    }
  });

  it("refuses a token that is none of them, including one that merely starts like the admin token", async () => {
    for (const token of [`${ADMIN}x`, ADMIN.slice(0, -1), ADMIN.toUpperCase(), "sk-tunnel-account-unknown"]) {
      await expect(credentials.fromBearer(`Bearer ${token}`)).rejects.toMatchObject({
        code: "admin_unauthorized",
        message: "Unknown token: use an API token, the admin token or an account's dashboard token.",
      });
    }
    await expect(credentials.fromBearer("Bearer sk-tunnel-admin-0000")).rejects.toMatchObject({
      code: "admin_unauthorized",
      message: "Unknown API token: it was revoked, or never issued.",
    });
  });

  it("knows no admin token when none is configured", async () => {
    const without = testIdentity(store);
    await expect(without.credentials.fromBearer(`Bearer ${ADMIN}`)).rejects.toMatchObject({
      code: "admin_unauthorized",
    });
  });

  it("stops knowing an account's token the moment it is revoked or replaced", async () => {
    const first = await store.accountService.createToken("acme", ACTOR);
    const second = await store.accountService.createToken("acme", ACTOR);
    await expect(credentials.fromBearer(`Bearer ${first.token}`)).rejects.toMatchObject({
      code: "admin_unauthorized",
    });
    expect((await credentials.fromBearer(`Bearer ${second.token}`)).credential).toEqual({
      kind: "account-token",
      accountId: "acme",
    });
    await store.accountService.revokeToken("acme", ACTOR);
    await expect(credentials.fromBearer(`Bearer ${second.token}`)).rejects.toMatchObject({
      code: "admin_unauthorized",
    });
  });
});

describe("what a legacy token may do", () => {
  it("lets an account's token at its own account only, with 403 forbidden", async () => {
    const { token } = await store.accountService.createToken("acme", ACTOR);
    const account = await credentials.fromBearer(`Bearer ${token}`);
    await expect(authorize(account, "keys.write", "acme")).resolves.toBeUndefined();
    await expect(authorize(account, "keys.read", "other")).rejects.toMatchObject({
      code: "forbidden",
      status: 403,
      message: "This token belongs to account acme and cannot access account other.",
    });
    await expect(authorize(account, "account.topup", "acme")).rejects.toMatchObject({
      message: "This token belongs to account acme and cannot top up an account.",
    });
    await expect(authorize(account, "accounts.create")).rejects.toMatchObject({
      message: "The token of account acme may not create an account.",
    });
    await expect(authorize(account, "me.manage")).rejects.toMatchObject({ code: "forbidden" });
  });

  it("lets the admin token do everything but what only a signed-in person may", async () => {
    const admin = await credentials.fromBearer(`Bearer ${ADMIN}`);
    await expect(authorize(admin, "account.topup", "other")).resolves.toBeUndefined();
    await expect(authorize(admin, "users.write")).resolves.toBeUndefined();
    await expect(authorize(admin, "me.manage")).rejects.toMatchObject({ code: "forbidden" });
  });
});

describe("fromSession", () => {
  it("knows a person by a live session, and refuses an ended one with 401 session_expired", async () => {
    const user = await identity.users.create({ email: "Ann@Example.com", name: "Ann" }, ACTOR);
    const { id } = await identity.sessions.start(
      user.id,
      { via: "password" },
      { userAgent: "ua", address: "::1" },
    );
    const principal = await credentials.fromSession(id);
    expect(principal.user?.email).toBe("ann@example.com");
    expect(principal.actor).toEqual({ kind: "user", userId: user.id, name: "Ann", via: "password" });
    await identity.sessions.end(id);
    await expect(credentials.fromSession(id)).rejects.toMatchObject({ code: "session_expired", status: 401 });
    await expect(credentials.fromSession("made-up")).rejects.toMatchObject({ code: "session_expired" });
  });

  it("refuses a disabled person's session with 403 user_disabled (disabling ends their sessions anyway)", async () => {
    const user = await identity.users.create({ email: "bob@example.com" }, ACTOR);
    const { id } = await identity.sessions.start(
      user.id,
      { via: "password" },
      { userAgent: "", address: "" },
    );
    await store.stores.users.update(user.id, { status: "disabled" }, "");
    await expect(credentials.fromSession(id)).rejects.toMatchObject({ code: "user_disabled", status: 403 });
    await identity.users.disable(user.id, ACTOR);
    await expect(credentials.fromSession(id)).rejects.toMatchObject({ code: "session_expired" });
  });
});
