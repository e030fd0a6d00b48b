// SCIM's /Groups over the suite's Redis, called directly as the SCIM handler does: groups unique by name (any
// case) and externalId, with members who are users SCIM sees; found by each filter; replaced and patched with
// the members' grants from the SCIM provider's rules brought in line at once; deleted, taking their grants
// with them. A refused request writes nothing.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../../src/identity/identity.js";
import type { Actor } from "../../../src/store/audit/audit-store.js";
import { ACTOR } from "../../helpers/actor.js";
import { testIdentity } from "../../helpers/identity.js";
import { RULES } from "../../helpers/scim.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const BASE = "https://gw.example.com/scim/v2";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const OKTA: Actor = { kind: "scim", tokenId: "scim_test", tokenName: "Okta" };
const PAGE = { startIndex: 1, count: 100 };
let store: TestStore;
let identity: Identity;
let ann: string;
let bob: string;
beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme" }, ACTOR);
  identity = testIdentity(store, {
    signIn: {
      providers: [{ id: "corp", name: "Corp", issuer: "http://127.0.0.1:9/", clientId: "gw", rules: RULES }],
      scim: { provider: "corp" },
    },
  });
  ann = (await identity.users.create({ email: "ann@example.com" }, ACTOR)).id;
  bob = (await identity.users.create({ email: "bob@example.com" }, ACTOR)).id;
});
afterEach(() => store.close());

const group = (displayName: string, members: string[] = [], extra: Record<string, unknown> = {}) => ({
  schemas: [GROUP],
  displayName,
  members: members.map((value) => ({ value })),
  ...extra,
});
const create = (body: unknown) => identity.scim.groups.create(BASE, body, OKTA);
const roleIn = async (userId: string) => {
  const members = await identity.grants.members("acme");
  return members.find((member) => member.user.id === userId)?.role ?? null;
};
const operatorGrants = async (userId: string) => (await identity.users.find(userId)).operatorGrants;
const names = async (filter?: string) =>
  ((await identity.scim.groups.list(BASE, filter, PAGE, true)) as { Resources: any[] }).Resources.map(
    (g) => g.displayName,
  );

describe("ScimGroups.create", () => {
  it("makes a group with its members, granting them what the provider's rules give the group's name", async () => {
    const made = await create(group("Engineering", [ann]));
    expect(made.id).toMatch(/^grp_[0-9a-z]{20}$/);
    expect(made).toMatchObject({ displayName: "Engineering", members: [{ value: ann }] });
    expect(await roleIn(ann)).toBe("member");
    expect(await roleIn(bob)).toBeNull();
    await create(group("Admins", [bob]));
    expect(Object.values(await operatorGrants(bob))).toEqual(["operator"]);
  });

  it("matches the rules by a group's externalId too (Entra ID's object id)", async () => {
    await create(group("Eng (Entra)", [bob], { externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159" }));
    expect(await roleIn(bob)).toBe("member");
  });

  it("refuses a name or externalId another group has, and a member who is no user here, writing nothing", async () => {
    await create(group("Engineering", [], { externalId: "ext-1" }));
    await identity.scim.users.delete(bob, OKTA);
    const before = await store.allKeys();
    await expect(create(group("ENGINEERING"))).rejects.toMatchObject({
      code: "scim_group_exists",
      fields: { scimType: "uniqueness" },
    });
    await expect(create(group("Other", [], { externalId: "ext-1" }))).rejects.toMatchObject({
      code: "scim_group_exists",
      message: "A group has the externalId ext-1.",
    });
    await expect(create(group("Other", ["usr_nobody"]))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('members: "usr_nobody" is not a user here.'),
    });
    await expect(create(group("Other", [`usr_${"x".repeat(20)}`]))).rejects.toMatchObject({ status: 400 });
    await expect(create(group("Other", [bob]))).rejects.toMatchObject({ status: 400 });
    expect(await store.allKeys()).toEqual(before);
    expect(await names()).toEqual(["Engineering"]);
  });
});

describe("ScimGroups.get and list", () => {
  it("finds groups by name (any case), externalId, id and member, members left out when asked", async () => {
    const eng = await create(group("Engineering", [ann], { externalId: "ext-1" }));
    await create(group("Admins", [bob]));
    expect(await names('displayName eq "engineering"')).toEqual(["Engineering"]);
    expect(await names('externalId eq "ext-1"')).toEqual(["Engineering"]);
    expect(await names(`id eq "${eng.id}"`)).toEqual(["Engineering"]);
    expect(await names('id eq "grp_bad"')).toEqual([]);
    expect(await names(`members.value eq "${bob}"`)).toEqual(["Admins"]);
    expect((await names()).sort()).toEqual(["Admins", "Engineering"]);
    const bare = await identity.scim.groups.get(BASE, eng.id as string, false);
    expect(bare.members).toBeUndefined();
    expect((await identity.scim.groups.get(BASE, eng.id as string, true)).members).toEqual([
      expect.objectContaining({ value: ann }),
    ]);
    await expect(identity.scim.groups.get(BASE, "grp_nonsense", true)).rejects.toMatchObject({
      code: "scim_group_not_found",
    });
  });
});

describe("ScimGroups.replace, patch and delete", () => {
  it("moves the grants with the members a PUT names, and renaming the group moves them to its new rule", async () => {
    const eng = await create(group("Engineering", [ann]));
    const id = eng.id as string;
    const replaced = await identity.scim.groups.replace(BASE, id, group("Engineering", [bob]), OKTA);
    expect(replaced.members).toEqual([expect.objectContaining({ value: bob })]);
    expect([await roleIn(ann), await roleIn(bob)]).toEqual([null, "member"]);
    await identity.scim.groups.replace(BASE, id, group("Admins", [bob]), OKTA);
    expect(await roleIn(bob)).toBeNull();
    expect(Object.values(await operatorGrants(bob))).toEqual(["operator"]);
  });

  it("writes nothing when a PUT changes nothing", async () => {
    const eng = await create(group("Engineering", [ann]));
    const log = await identity.scim.audit(50);
    store.clock.advance(1000);
    const same = await identity.scim.groups.replace(
      BASE,
      eng.id as string,
      group("Engineering", [ann]),
      OKTA,
    );
    expect(await identity.scim.audit(50)).toEqual(log);
    expect((same.meta as { lastModified: string }).lastModified).toBe(
      (eng.meta as { lastModified: string }).lastModified,
    );
  });

  it("refuses renaming onto another group's name", async () => {
    await create(group("Engineering"));
    const admins = await create(group("Admins"));
    await expect(
      identity.scim.groups.replace(BASE, admins.id as string, group("engineering"), OKTA),
    ).rejects.toMatchObject({ code: "scim_group_exists" });
  });

  it("adds and removes members with a PATCH", async () => {
    const eng = await create(group("Engineering", [ann]));
    const id = eng.id as string;
    await identity.scim.groups.patch(
      id,
      { schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value: bob }] }] },
      OKTA,
    );
    expect([await roleIn(ann), await roleIn(bob)]).toEqual(["member", "member"]);
    await identity.scim.groups.patch(
      id,
      { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${ann}"]` }] },
      OKTA,
    );
    expect([await roleIn(ann), await roleIn(bob)]).toEqual([null, "member"]);
  });

  it("takes a deleted group's grants from its members, and then knows it no more", async () => {
    const eng = await create(group("Engineering", [ann]));
    await identity.scim.groups.delete(eng.id as string, OKTA);
    expect(await roleIn(ann)).toBeNull();
    await expect(identity.scim.groups.delete(eng.id as string, OKTA)).rejects.toMatchObject({
      code: "scim_group_not_found",
    });
    expect(await names()).toEqual([]);
  });
});
