// People in Redis: one user per e-mail, grants by source in each account's members hash (the truth about
// access) with the person's index of accounts kept in step, each change of a grant audited once and a change
// that changes nothing not at all. On the suite's Redis.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEntry, userAuditEntry } from "../../../src/store/audit/audit-store.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme" }, ACTOR);
});
afterEach(() => store.close());

const users = () => store.stores.users;
const ID = "usr_00000000000000000001";

async function create(id = ID, email = "ann@example.com") {
  const audit = userAuditEntry(ACTOR, store.clock.now(), "user.create", id, { email });
  await users().create({ id, name: "Ann", email, createdAt: store.clock.now(), operatorGrants: {} }, audit);
}

describe("UserStore", () => {
  it("creates a user once per e-mail, found by id and by e-mail, the creation audited", async () => {
    await create();
    expect(await users().byEmail("ann@example.com")).toMatchObject({
      id: ID,
      status: "active",
      passwordHash: null,
    });
    await expect(create("usr_00000000000000000002")).rejects.toMatchObject({ code: "user_exists" });
    expect(await users().list()).toHaveLength(1);
    expect((await store.stores.audit.listUser(ID, 10)).map((e) => e.action)).toEqual(["user.create"]);
  });

  it("keeps grants by source, the index of accounts in step, and audits only real changes", async () => {
    await create();
    const entry = auditEntry(ACTOR, store.clock.now(), "member.grant", "acme", { user_id: ID });
    expect(await users().setAccountGrant("acme", ID, "direct", "viewer", entry)).toEqual({
      grants: { direct: "viewer" },
      changed: true,
    });
    expect(await users().setAccountGrant("acme", ID, "oidc:corp", "owner", entry)).toMatchObject({
      changed: true,
    });
    expect(await users().setAccountGrant("acme", ID, "oidc:corp", "owner", entry)).toMatchObject({
      changed: false,
    });
    expect(await users().memberships(ID)).toEqual(
      new Map([["acme", { direct: "viewer", "oidc:corp": "owner" }]]),
    );
    await users().setAccountGrant("acme", ID, "direct", null, entry);
    expect(await users().accountGrants("acme", ID)).toEqual({ "oidc:corp": "owner" });
    await users().setAccountGrant("acme", ID, "*", null, entry);
    expect(await users().accountGrants("acme", ID)).toEqual({});
    expect(await store.redis.smembers(store.redisKeys.userAccounts(ID))).toEqual([]);
    expect(await store.redis.hlen(store.redisKeys.members("acme"))).toBe(0);
    // Four changes, four entries; the grant that changed nothing left none.
    expect(
      (await store.accountService.audit("acme", 100)).filter((e) => e.action === "member.grant"),
    ).toHaveLength(4);
    await expect(users().setAccountGrant("ghost", ID, "direct", "viewer", entry)).rejects.toMatchObject({
      code: "account_not_found",
    });
  });

  it("ignores an index entry the account's members hash contradicts", async () => {
    await create();
    await store.redis.sadd(store.redisKeys.userAccounts(ID), "acme");
    expect(await users().memberships(ID)).toEqual(new Map());
  });

  it("keeps operator grants in the user record", async () => {
    await create();
    const entry = userAuditEntry(ACTOR, store.clock.now(), "user.operator", ID, {});
    await users().setOperatorGrant(ID, "oidc:corp", "operator-viewer", entry);
    expect((await users().require(ID)).operatorGrants).toEqual({ "oidc:corp": "operator-viewer" });
    await expect(
      users().setOperatorGrant("usr_00000000000000000009", "direct", "operator", entry),
    ).rejects.toMatchObject({
      code: "user_not_found",
    });
  });
});
