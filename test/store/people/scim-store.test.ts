// What SCIM keeps beside the people (store/people/scim-store.ts), on the suite's Redis: a user's SCIM
// attributes with their externalId lookup moved as it changes, the users a SCIM client deleted (seen again
// once written again), and groups with their case-folded name and externalId lookups, their members (the only
// record of who is in a group), the SCIM log, and a key of another type refused before anything is written.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  groupNameKey,
  type ScimGroupRecord,
  type ScimStore,
  type ScimUserAttributes,
} from "../../../src/store/people/scim-store.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
let scim: ScimStore;
beforeEach(async () => {
  store = await openStore();
  scim = store.stores.scim;
});
afterEach(() => store.close());

const attributes = (over: Partial<ScimUserAttributes> = {}): ScimUserAttributes => ({
  externalId: "ext-1",
  givenName: "Ada",
  familyName: "Lovelace",
  formatted: "Ada Lovelace",
  emails: [{ value: "ada@example.com", type: "work", primary: true }],
  modifiedAt: 1000,
  ...over,
});

const group = (over: Partial<ScimGroupRecord> = {}): ScimGroupRecord => ({
  id: "g1",
  displayName: "Engineering",
  externalId: "gx-1",
  createdAt: 100,
  modifiedAt: 100,
  ...over,
});

const NO_CHANGE = { add: [], remove: [] };
const scimLog = () => store.redis.lrange(store.redisKeys.scimAudit(), 0, -1);

describe("a user's SCIM attributes", () => {
  it("are none until written, then read back as written, empty ones as null", async () => {
    expect(await scim.userAttributes("u1")).toBeNull();
    await scim.setUserAttributes("u1", attributes(), null);
    expect(await scim.userAttributes("u1")).toEqual(attributes());
    await scim.setUserAttributes(
      "u1",
      attributes({ externalId: null, givenName: null, familyName: null, formatted: null, emails: [] }),
      "ext-1",
    );
    expect(await scim.userAttributes("u1")).toEqual({
      externalId: null,
      givenName: null,
      familyName: null,
      formatted: null,
      emails: [],
      modifiedAt: 1000,
    });
  });

  it("read e-mails that are not a JSON list as none", async () => {
    await scim.setUserAttributes("u1", attributes(), null);
    await store.redis.hset(store.redisKeys.scimUser("u1"), "emails", "{not json");
    expect((await scim.userAttributes("u1"))?.emails).toEqual([]);
    await store.redis.hset(store.redisKeys.scimUser("u1"), "emails", '{"value":"a@b"}');
    expect((await scim.userAttributes("u1"))?.emails).toEqual([]);
  });

  it("move the externalId lookup when it changes, and drop it when it goes", async () => {
    await scim.setUserAttributes("u1", attributes(), null);
    expect(await scim.userByExternalId("ext-1")).toBe("u1");
    await scim.setUserAttributes("u1", attributes({ externalId: "ext-2" }), "ext-1");
    expect(await scim.userByExternalId("ext-1")).toBeNull();
    expect(await scim.userByExternalId("ext-2")).toBe("u1");
    await scim.setUserAttributes("u1", attributes({ externalId: "ext-2", givenName: "A." }), "ext-2");
    expect(await scim.userByExternalId("ext-2")).toBe("u1");
    await scim.setUserAttributes("u1", attributes({ externalId: null }), "ext-2");
    expect(await scim.userByExternalId("ext-2")).toBeNull();
  });

  it("go when the user is deleted, who is then seen no more until written again", async () => {
    await scim.setUserAttributes("u1", attributes(), null);
    await scim.setUserAttributes("u2", attributes({ externalId: "ext-2" }), null);
    await scim.markDeleted("u1", "ext-1");
    expect(await scim.userAttributes("u1")).toBeNull();
    expect(await scim.userByExternalId("ext-1")).toBeNull();
    expect(await scim.isDeleted("u1")).toBe(true);
    expect(await scim.isDeleted("u2")).toBe(false);
    await scim.markDeleted("u3", null);
    expect(await scim.deletedUsers()).toEqual(new Set(["u1", "u3"]));
    await scim.setUserAttributes("u1", attributes(), null);
    expect(await scim.isDeleted("u1")).toBe(false);
    expect(await scim.userByExternalId("ext-1")).toBe("u1");
  });

  it("are not written when a lookup key holds another type, naming it", async () => {
    await store.redis.set(store.redisKeys.scim().userExternal, "x");
    await expect(scim.setUserAttributes("u1", attributes(), null)).rejects.toThrow(
      `WRONGTYPE ${store.redisKeys.scim().userExternal} holds a string where a hash belongs; nothing was written`,
    );
    await expect(scim.markDeleted("u1", null)).rejects.toThrow(/^WRONGTYPE/);
    expect(await scim.userAttributes("u1")).toBeNull();
    expect(await scim.isDeleted("u1")).toBe(false);
  });
});

describe("groups", () => {
  it("are saved with their lookups, the name compared without case, and listed oldest first", async () => {
    await scim.saveGroup(
      group({ id: "g2", displayName: "Admins", externalId: null, createdAt: 200 }),
      null,
      NO_CHANGE,
      "",
    );
    await scim.saveGroup(group(), null, NO_CHANGE, "");
    expect(await scim.group("g1")).toEqual(group());
    expect(await scim.group("g2")).toMatchObject({ externalId: null });
    expect(await scim.group("ghost")).toBeNull();
    expect(await scim.groupByName("ENGINEERING")).toBe("g1");
    expect(await scim.groupByExternalId("gx-1")).toBe("g1");
    expect(await scim.groupIds()).toEqual(["g1", "g2"]);
    expect(groupNameKey("Ops Team")).toBe("ops team");
  });

  it("keep their place in the list when changed, and move their lookups on a rename or a new externalId", async () => {
    const first = group();
    await scim.saveGroup(first, null, NO_CHANGE, "");
    await scim.saveGroup(
      group({ id: "g2", displayName: "Other", externalId: null, createdAt: 200 }),
      null,
      NO_CHANGE,
      "",
    );
    const renamed = group({ displayName: "Platform", externalId: "gx-2", createdAt: 999, modifiedAt: 300 });
    await scim.saveGroup(renamed, first, NO_CHANGE, "");
    expect(await scim.groupByName("engineering")).toBeNull();
    expect(await scim.groupByName("platform")).toBe("g1");
    expect(await scim.groupByExternalId("gx-1")).toBeNull();
    expect(await scim.groupByExternalId("gx-2")).toBe("g1");
    expect(await scim.groupIds()).toEqual(["g1", "g2"]);
    // Only the case changes: the lookup stays.
    await scim.saveGroup(group({ displayName: "PLATFORM", externalId: "gx-2" }), renamed, NO_CHANGE, "");
    expect(await scim.groupByName("Platform")).toBe("g1");
  });

  it("hold their members, added and removed in the same write, and a user's groups are read from them", async () => {
    await scim.saveGroup(group(), null, { add: ["u2", "u1"], remove: [] }, "");
    await scim.saveGroup(
      group({ id: "g2", displayName: "Admins", createdAt: 200 }),
      null,
      { add: ["u1"], remove: [] },
      "",
    );
    expect(await scim.members("g1")).toEqual(["u1", "u2"]);
    expect(await scim.groupsOf("u1")).toEqual(["g1", "g2"]);
    await scim.saveGroup(group(), group(), { add: ["u3"], remove: ["u1"] }, "");
    expect(await scim.members("g1")).toEqual(["u2", "u3"]);
    expect(await scim.groupsOf("u1")).toEqual(["g2"]);
    expect(await scim.groupsOf("nobody")).toEqual([]);
  });

  it("find no groups of a user when there are none", async () => {
    expect(await scim.groupsOf("u1")).toEqual([]);
  });

  it("record a change in the SCIM log when there is one to record", async () => {
    await scim.saveGroup(group(), null, NO_CHANGE, "");
    expect(await scimLog()).toEqual([]);
    await scim.saveGroup(group(), group(), { add: ["u1"], remove: [] }, '{"action":"scim.group.update"}');
    expect(await scimLog()).toEqual(['{"action":"scim.group.update"}']);
  });

  it("are deleted with their members and lookups, logged", async () => {
    await scim.saveGroup(group(), null, { add: ["u1"], remove: [] }, "");
    await scim.deleteGroup(group(), '{"action":"scim.group.delete"}');
    expect(await scim.group("g1")).toBeNull();
    expect(await scim.members("g1")).toEqual([]);
    expect(await scim.groupByName("Engineering")).toBeNull();
    expect(await scim.groupByExternalId("gx-1")).toBeNull();
    expect(await scim.groupIds()).toEqual([]);
    expect(await scim.groupsOf("u1")).toEqual([]);
    expect(await scimLog()).toEqual(['{"action":"scim.group.delete"}']);
  });

  it("read a group's hash without a name as no group, and one never modified as modified when created", async () => {
    const { group: key } = store.redisKeys.scimGroup("g9");
    await store.redis.hset(key, { id: "g9" });
    expect(await scim.group("g9")).toBeNull();
    await store.redis.hset(key, { display_name: "Nine", created_at: "50" });
    expect(await scim.group("g9")).toEqual({
      id: "g9",
      displayName: "Nine",
      externalId: null,
      createdAt: 50,
      modifiedAt: 50,
    });
  });

  it("are not written when one of their keys holds another type", async () => {
    await store.redis.set(store.redisKeys.scimGroup("g1").members, "x");
    await expect(scim.saveGroup(group(), null, { add: ["u1"], remove: [] }, "log")).rejects.toThrow(
      /^WRONGTYPE/,
    );
    expect(await scim.group("g1")).toBeNull();
    expect(await scimLog()).toEqual([]);
  });
});
