// SCIM's /Users over the suite's Redis, called directly as the SCIM handler does (the HTTP side and whole
// directories' conversations are test/admin/scim-*.test.ts and test/e2e/scim-*.test.ts): creating, with the
// e-mail and externalId unique among the users SCIM sees and a deleted user brought back; finding by each
// filter, deleted users left out; replacing and patching; deleting, after which the user is seen no more;
// and a refused request writing nothing.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../../src/identity/identity.js";
import type { Actor } from "../../../src/store/audit/audit-store.js";
import { ACTOR } from "../../helpers/actor.js";
import { testIdentity } from "../../helpers/identity.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const BASE = "https://gw.example.com/scim/v2";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const OKTA: Actor = { kind: "scim", tokenId: "scim_test", tokenName: "Okta" };
const PAGE = { startIndex: 1, count: 100 };
let store: TestStore;
let identity: Identity;
beforeEach(async () => {
  store = await openStore();
  identity = testIdentity(store);
});
afterEach(() => store.close());

const user = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER],
  userName,
  ...extra,
});
const create = (body: unknown) => identity.scim.users.create(BASE, body, OKTA);
const list = async (filter?: string, page = PAGE) =>
  (await identity.scim.users.list(BASE, filter, page)) as { totalResults: number; Resources: any[] };
const userNames = async (filter?: string) => (await list(filter)).Resources.map((r) => r.userName);

describe("ScimUsers.create", () => {
  it("provisions a person from a SCIM User, with their name parts and externalId, active", async () => {
    const made = await create(
      user("Ann@Example.com", { externalId: "00u1", name: { givenName: "Ann", familyName: "Lee" } }),
    );
    expect(made).toMatchObject({
      userName: "ann@example.com",
      displayName: "Ann Lee",
      externalId: "00u1",
      active: true,
    });
    const person = await identity.users.find("ann@example.com");
    expect(made.id).toBe(person.id);
    expect(person).toMatchObject({ name: "Ann Lee", status: "active" });
  });

  it("provisions one sent inactive as disabled", async () => {
    const made = await create(user("ann@example.com", { active: false }));
    expect(made.active).toBe(false);
    expect((await identity.users.find("ann@example.com")).status).toBe("disabled");
  });

  it("refuses an e-mail or an externalId another user has with 409 uniqueness, writing nothing", async () => {
    await create(user("ann@example.com", { externalId: "00u1" }));
    const before = await store.allKeys();
    await expect(create(user("ANN@example.com"))).rejects.toMatchObject({
      code: "user_exists",
      fields: { scimType: "uniqueness" },
    });
    await expect(create(user("bob@example.com", { externalId: "00u1" }))).rejects.toMatchObject({
      code: "scim_conflict",
      fields: { scimType: "uniqueness" },
    });
    await expect(create(user("not-an-email"))).rejects.toMatchObject({ status: 400 });
    expect(await store.allKeys()).toEqual(before);
  });

  it("takes over a person who exists already, unless a client sees them: by e-mail, keeping their id", async () => {
    const ann = await identity.users.create({ email: "ann@example.com", name: "Ann" }, ACTOR);
    await expect(create(user("ann@example.com"))).rejects.toMatchObject({ code: "user_exists" });
    await identity.scim.users.delete(ann.id, OKTA);
    const back = await create(user("ann@example.com", { displayName: "Ann Again", externalId: "00u9" }));
    expect(back).toMatchObject({ id: ann.id, displayName: "Ann Again", externalId: "00u9", active: true });
    expect((await identity.users.find(ann.id)).status).toBe("active");
  });
});

describe("ScimUsers.get and list", () => {
  beforeEach(async () => {
    await create(user("ann@example.com", { externalId: "00u1", displayName: "Ann" }));
    await create(user("bob@example.com", { externalId: "00u2", displayName: "Bob" }));
    await create(user("cat@example.com", { displayName: "Cat" }));
  });

  it("finds users by userName (any case), externalId, id and displayName, and all of them without a filter", async () => {
    const ann = await identity.users.find("ann@example.com");
    expect(await userNames('userName eq "ANN@example.com"')).toEqual(["ann@example.com"]);
    expect(await userNames('externalId eq "00u2"')).toEqual(["bob@example.com"]);
    expect(await userNames(`id eq "${ann.id}"`)).toEqual(["ann@example.com"]);
    expect(await userNames('displayName eq "cat"')).toEqual(["cat@example.com"]);
    expect(await userNames('userName eq "ann@example.com" and externalId eq "00u2"')).toEqual([]);
    expect(await userNames('id eq "usr_bad"')).toEqual([]);
    expect((await userNames()).sort()).toEqual(["ann@example.com", "bob@example.com", "cat@example.com"]);
    expect((await identity.scim.users.get(BASE, ann.id)).userName).toBe("ann@example.com");
  });

  it("pages the whole list, counting every user", async () => {
    const page = await list(undefined, { startIndex: 2, count: 1 });
    expect(page).toMatchObject({ totalResults: 3, startIndex: 2, itemsPerPage: 1 });
    expect(page.Resources).toHaveLength(1);
  });

  it("leaves a deleted user out of every answer, and answers 404 for them and for an id that is no id", async () => {
    const bob = await identity.users.find("bob@example.com");
    await identity.scim.users.delete(bob.id, OKTA);
    expect(await userNames('externalId eq "00u2"')).toEqual([]);
    expect(await userNames('userName eq "bob@example.com"')).toEqual([]);
    expect((await list()).totalResults).toBe(2);
    await expect(identity.scim.users.get(BASE, bob.id)).rejects.toMatchObject({
      code: "user_not_found",
      message: `Resource ${bob.id} not found.`,
    });
    await expect(identity.scim.users.get(BASE, "nonsense")).rejects.toMatchObject({ code: "user_not_found" });
    await expect(identity.scim.users.delete(bob.id, OKTA)).rejects.toMatchObject({ code: "user_not_found" });
    expect((await identity.users.find(bob.id)).status).toBe("disabled");
  });

  it("refuses a filter on an attribute it does not filter by", async () => {
    await expect(list('title eq "boss"')).rejects.toMatchObject({ status: 400 });
  });
});

describe("ScimUsers.replace and patch", () => {
  it("makes the user what a PUT says, clearing what it leaves out, and deactivates and reactivates", async () => {
    const made = await create(user("ann@example.com", { externalId: "00u1", name: { givenName: "Ann" } }));
    const id = made.id as string;
    const replaced = await identity.scim.users.replace(
      BASE,
      id,
      user("annie@example.com", { displayName: "Annie", active: false }),
      OKTA,
    );
    expect(replaced).toMatchObject({ userName: "annie@example.com", displayName: "Annie", active: false });
    expect(replaced.externalId).toBeUndefined();
    expect(await identity.users.find(id)).toMatchObject({ email: "annie@example.com", status: "disabled" });
    await identity.scim.users.replace(
      BASE,
      id,
      user("annie@example.com", { displayName: "Annie", active: true }),
      OKTA,
    );
    expect((await identity.users.find(id)).status).toBe("active");
  });

  it("refuses a PUT to another user's e-mail or externalId, changing nothing", async () => {
    const ann = await create(user("ann@example.com", { externalId: "00u1" }));
    await create(user("bob@example.com", { externalId: "00u2" }));
    await expect(
      identity.scim.users.replace(BASE, ann.id as string, user("bob@example.com"), OKTA),
    ).rejects.toMatchObject({
      code: "user_exists",
      message: "Another user has the userName bob@example.com.",
    });
    await expect(
      identity.scim.users.replace(
        BASE,
        ann.id as string,
        user("ann@example.com", { externalId: "00u2" }),
        OKTA,
      ),
    ).rejects.toMatchObject({ code: "scim_conflict" });
    expect(await identity.scim.users.get(BASE, ann.id as string)).toMatchObject({
      userName: "ann@example.com",
      externalId: "00u1",
    });
  });

  it("applies a PATCH in Okta's shape (active false) and Entra ID's (a path), leaving the rest", async () => {
    const made = await create(user("ann@example.com", { externalId: "00u1", displayName: "Ann" }));
    const id = made.id as string;
    await identity.scim.users.patch(
      BASE,
      id,
      { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] },
      OKTA,
    );
    expect((await identity.users.find(id)).status).toBe("disabled");
    const patched = await identity.scim.users.patch(
      BASE,
      id,
      { schemas: [PATCH], Operations: [{ op: "Replace", path: "displayName", value: "Ann Lee" }] },
      OKTA,
    );
    expect(patched).toMatchObject({ displayName: "Ann Lee", externalId: "00u1", active: false });
    await expect(
      identity.scim.users.patch(BASE, "usr_nobody", { schemas: [PATCH], Operations: [] }, OKTA),
    ).rejects.toMatchObject({ code: "user_not_found" });
  });

  it("writes no audit entry when a PUT changes nothing", async () => {
    const made = await create(user("ann@example.com", { externalId: "00u1", displayName: "Ann" }));
    const id = made.id as string;
    const before = await store.stores.audit.listUser(id, 50);
    await identity.scim.users.replace(
      BASE,
      id,
      user("ann@example.com", { externalId: "00u1", displayName: "Ann" }),
      OKTA,
    );
    expect(await store.stores.audit.listUser(id, 50)).toEqual(before);
  });
});
