// Who calls the admin API: the operator's admin token (every account), an account's dashboard token (that
// account only, looked up by hash at every call so that a revoked one stops at once), or nobody. On the
// suite's Redis.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AdminCredentials, actorOf, assertAdmin, assertMayAccess } from "../../src/admin/credentials.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

const ADMIN = "admin-token-0123456789";

let store: TestStore;
let credentials: AdminCredentials;
beforeEach(async () => {
  store = await openStore();
  credentials = new AdminCredentials(ADMIN, store.accounts);
  await store.accountService.create({ id: "acme" }, ACTOR);
});
afterEach(() => store.close());

describe("identify", () => {
  it("knows the operator by the admin token, and an account by its dashboard token", async () => {
    expect(await credentials.identify(`Bearer ${ADMIN}`)).toEqual({ role: "admin" });
    expect(await credentials.identify(`bearer   ${ADMIN}`)).toEqual({ role: "admin" });
    const { token } = await store.accountService.createToken("acme", ACTOR);
    expect(await credentials.identify(`Bearer ${token}`)).toEqual({ role: "account", accountId: "acme" });
  });

  it("refuses a missing or malformed Authorization header with 401 admin_unauthorized", async () => {
    for (const header of [undefined, "", ADMIN, `Basic ${ADMIN}`, "Bearer", "Bearer a b"]) {
      await expect(credentials.identify(header), String(header)).rejects.toMatchObject({
        code: "admin_unauthorized",
        status: 401,
      });
    }
  });

  it("refuses a token that is neither, including one that merely starts like the admin token", async () => {
    for (const token of [`${ADMIN}x`, ADMIN.slice(0, -1), ADMIN.toUpperCase(), "sk-tunnel-account-unknown"]) {
      await expect(credentials.identify(`Bearer ${token}`)).rejects.toMatchObject({
        code: "admin_unauthorized",
        message: "Unknown token: use the admin token or an account's dashboard token.",
      });
    }
  });

  it("stops knowing an account's token the moment it is revoked or replaced", async () => {
    const first = await store.accountService.createToken("acme", ACTOR);
    const second = await store.accountService.createToken("acme", ACTOR);
    await expect(credentials.identify(`Bearer ${first.token}`)).rejects.toMatchObject({
      code: "admin_unauthorized",
    });
    expect(await credentials.identify(`Bearer ${second.token}`)).toEqual({
      role: "account",
      accountId: "acme",
    });
    await store.accountService.revokeToken("acme", ACTOR);
    await expect(credentials.identify(`Bearer ${second.token}`)).rejects.toMatchObject({
      code: "admin_unauthorized",
    });
  });
});

describe("what a principal may do", () => {
  it("records the operator's changes as admin and an account's as that account", () => {
    expect(actorOf({ role: "admin" })).toEqual({ kind: "admin" });
    expect(actorOf({ role: "account", accountId: "acme" })).toEqual({ kind: "account", accountId: "acme" });
  });

  it("lets the operator at every account, and an account at its own only, with 403 forbidden", () => {
    expect(() => assertMayAccess({ role: "admin" }, "other")).not.toThrow();
    expect(() => assertMayAccess({ role: "account", accountId: "acme" }, "acme")).not.toThrow();
    expect(() => assertMayAccess({ role: "account", accountId: "acme" }, "other")).toThrow(
      expect.objectContaining({
        code: "forbidden",
        status: 403,
        message: "This token belongs to account acme and cannot access account other.",
      }),
    );
  });

  it("keeps operator-only actions to the admin token, saying which action", () => {
    expect(() => assertAdmin({ role: "admin" }, "top up an account")).not.toThrow();
    expect(() => assertAdmin({ role: "account", accountId: "acme" }, "top up an account")).toThrow(
      expect.objectContaining({
        code: "forbidden",
        message: "Only the operator's admin token may top up an account.",
      }),
    );
  });
});
