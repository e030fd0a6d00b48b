// What each SCIM change writes and tells, on the suite's Redis, driven through SCIM's users and groups as a
// directory drives them: the SCIM log (tokens, groups), the person's log (created, attributes changed naming
// them, memberships, deactivated, deleted), the scim.* identity events; a deactivation revoking the person's
// API tokens; SCIM grants following the groups while grants of other sources stay; and a rule that names an
// account that does not exist logged as a warning.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../../src/identity/identity.js";
import type { Actor } from "../../../src/store/audit/audit-store.js";
import { ACTOR } from "../../helpers/actor.js";
import { identityEventsOf } from "../../helpers/channels.js";
import { testIdentity } from "../../helpers/identity.js";
import { type CapturedLogs, captureLogs } from "../../helpers/logs.js";
import { RULES } from "../../helpers/scim.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const BASE = "https://gw.example.com/scim/v2";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const OKTA: Actor = { kind: "scim", tokenId: "scim_test", tokenName: "Okta" };
let store: TestStore;
let identity: Identity;
let logs: CapturedLogs;
let recorded: ReturnType<typeof identityEventsOf>;
beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme" }, ACTOR);
  logs = captureLogs();
  identity = testIdentity(store, {
    logger: logs.logger,
    signIn: {
      providers: [
        {
          id: "corp",
          name: "Corp",
          issuer: "http://127.0.0.1:9/",
          clientId: "gw",
          rules: [...RULES, { groups: ["Ghosts"], account: "ghost", role: "member" }],
        },
      ],
      scim: { provider: "corp" },
    },
  });
  recorded = identityEventsOf(identity.events);
});
afterEach(() => {
  recorded.stop();
  store.close();
});

const provision = async (userName: string, extra: Record<string, unknown> = {}) =>
  (await identity.scim.users.create(BASE, { schemas: [USER], userName, ...extra }, OKTA)).id as string;
const pushGroup = async (displayName: string, members: string[]) =>
  (
    await identity.scim.groups.create(
      BASE,
      { schemas: [GROUP], displayName, members: members.map((value) => ({ value })) },
      OKTA,
    )
  ).id as string;
const personLog = async (userId: string) =>
  (await store.stores.audit.listUser(userId, 50)).map((entry) => [entry.action, entry.details]).reverse();
const events = () => recorded.seen.map(({ event, outcome, ...fields }) => [event, fields]);

describe("ScimChanges for users", () => {
  it("records a provisioned person's creation alone, and an attributes change naming what changed", async () => {
    const ann = await provision("ann@example.com", { externalId: "00u1" });
    const put = (extra: Record<string, unknown>) =>
      identity.scim.users.replace(
        BASE,
        ann,
        { schemas: [USER], userName: "ann@example.com", ...extra },
        OKTA,
      );
    await put({
      externalId: "00u1",
      name: { givenName: "Ann", familyName: "Lee" },
      displayName: "ann@example.com",
    });
    expect(await personLog(ann)).toEqual([
      ["user.create", { email: "ann@example.com", name: "ann@example.com" }],
      ["user.update", { email: "ann@example.com", attributes: ["name.givenName", "name.familyName"] }],
    ]);
    expect(events()).toEqual([
      ["scim.user.create", { userId: ann }],
      ["scim.user.update", { userId: ann, detail: "name.givenName, name.familyName" }],
    ]);
  });

  it("reports a new e-mail or display name as an update naming the fields", async () => {
    const ann = await provision("ann@example.com");
    await identity.scim.users.replace(
      BASE,
      ann,
      { schemas: [USER], userName: "annie@example.com", displayName: "Annie" },
      OKTA,
    );
    expect(events().at(-1)).toEqual(["scim.user.update", { userId: ann, detail: "email, name" }]);
  });

  it("revokes a deactivated person's API tokens, each in their log, and counts them in the event", async () => {
    const ann = await provision("ann@example.com");
    await identity.grants.grant("acme", ann, "direct", "member", ACTOR);
    const { id } = await identity.sessions.start(ann, { via: "password" }, { userAgent: "", address: "" });
    const principal = await identity.credentials.fromSession(id);
    for (const name of ["ci", "laptop"])
      await identity.tokens.create(principal, { name, role: "viewer", accountId: "acme" });
    await identity.scim.users.patch(
      BASE,
      ann,
      {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [{ op: "replace", value: { active: false } }],
      },
      OKTA,
    );
    expect(await store.stores.apiTokens.list(ann)).toEqual([]);
    expect(events().at(-1)).toEqual(["scim.user.deactivate", { userId: ann, count: 2 }]);
    const actions = (await personLog(ann)).map(([action]) => action);
    expect(actions.slice(-3)).toEqual(["user.disable", "token.revoke", "token.revoke"]);
  });

  it("takes a deleted person out of their groups and their SCIM grants, keeping their record disabled", async () => {
    const ann = await provision("ann@example.com");
    const eng = await pushGroup("Engineering", [ann]);
    await identity.grants.grant("acme", ann, "direct", "viewer", ACTOR);
    expect((await identity.grants.member("acme", ann)).role).toBe("member");
    await identity.scim.users.delete(ann, OKTA);
    expect((await identity.grants.member("acme", ann)).grants).toEqual({ direct: "viewer" });
    expect((await identity.scim.groups.get(BASE, eng, true)).members ?? []).toEqual([]);
    expect((await identity.users.find(ann)).status).toBe("disabled");
    expect((await personLog(ann)).slice(-3).map(([action]) => action)).toEqual([
      "user.disable",
      "user.group.remove",
      "user.delete",
    ]);
    expect((await personLog(ann)).at(-1)).toEqual(["user.delete", { email: "ann@example.com" }]);
    expect(events().map(([event]) => event)).toContain("scim.user.delete");
  });
});

describe("ScimChanges for groups", () => {
  it("logs a group's creation, renaming and deletion in the SCIM log, and each membership in the person's", async () => {
    const ann = await provision("ann@example.com");
    const id = await pushGroup("Engineering", [ann]);
    await identity.scim.groups.replace(
      BASE,
      id,
      { schemas: [GROUP], displayName: "Admins", members: [] },
      OKTA,
    );
    await identity.scim.groups.delete(id, OKTA);
    expect((await identity.scim.audit(10)).map((entry) => [entry.action, entry.details]).reverse()).toEqual([
      ["scim.group.create", { group_id: id, display_name: "Engineering", external_id: null }],
      [
        "scim.group.update",
        { group_id: id, display_name: "Admins", external_id: null, previous_display_name: "Engineering" },
      ],
      ["scim.group.delete", { group_id: id, display_name: "Admins", external_id: null }],
    ]);
    expect((await personLog(ann)).slice(1)).toEqual([
      ["user.group.add", { group_id: id, group: "Engineering" }],
      ["user.group.remove", { group_id: id, group: "Admins" }],
    ]);
    expect(events().filter(([event]) => event === "scim.group.members")).toEqual([
      ["scim.group.members", { detail: "Engineering", count: 1 }],
      ["scim.group.members", { detail: "Admins", count: 1 }],
    ]);
  });

  it("brings every member's grants in line when a group is renamed, its members unchanged", async () => {
    const ann = await provision("ann@example.com");
    const bob = await provision("bob@example.com");
    const id = await pushGroup("Engineering", [ann, bob]);
    await identity.scim.groups.replace(
      BASE,
      id,
      { schemas: [GROUP], displayName: "Admins", members: [{ value: ann }, { value: bob }] },
      OKTA,
    );
    for (const userId of [ann, bob]) {
      expect(Object.values((await identity.users.find(userId)).operatorGrants)).toEqual(["operator"]);
      expect((await identity.grants.memberships(userId)).map((m) => m.accountId)).toEqual([]);
    }
  });

  it("takes a deleted group's grants from its members", async () => {
    const ann = await provision("ann@example.com");
    const id = await pushGroup("Admins", [ann]);
    await identity.scim.groups.delete(id, OKTA);
    expect((await identity.users.find(ann)).operatorGrants).toEqual({});
    // The membership ends first, then the grant it gave.
    expect((await personLog(ann)).slice(-2).map(([action]) => action)).toEqual([
      "user.group.remove",
      "user.operator",
    ]);
  });

  it("warns when a rule the groups match names an account that does not exist", async () => {
    const ann = await provision("ann@example.com");
    await pushGroup("Ghosts", [ann]);
    expect(logs.lines.find((line) => line.level === 40)).toMatchObject({
      accounts: ["ghost"],
      msg: expect.stringContaining("names accounts that do not exist"),
    });
  });
});
