// Okta's provisioning against the running gateway over real HTTP, request by request as Okta's SCIM 2.0
// reference records them (test/fixtures/scim/okta.ts): the userName lookup before creating, the create, the
// PUT of a profile change, a pushed group and its membership changes, the deactivation. A membership gives
// the person the role its mapping rule names at once, its removal takes it away at once, and the
// deactivation ends their session and API token: the next request with either gets 401.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as OKTA from "../fixtures/scim/okta.js";
import {
  access,
  makeApiToken,
  type Person,
  type ScimGateway,
  signedInPerson,
  startScimGateway,
} from "../helpers/scim.js";

let g: ScimGateway;

beforeAll(async () => {
  g = await startScimGateway();
});
afterAll(async () => {
  await g?.close();
});

describe("Okta's provisioning", () => {
  let userId: string;
  let groupId: string;
  let person: Person;

  it("looks the user up by userName, finds none, and creates them", async () => {
    const lookup = await g.scim("GET", OKTA.FIND_USER);
    expect(lookup.status).toBe(200);
    expect(lookup.headers.get("content-type")).toBe("application/scim+json; charset=utf-8");
    expect(lookup.body).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });
    const created = await g.scim("POST", "/Users", OKTA.CREATE_USER);
    expect(created.status).toBe(201);
    userId = created.body.id;
    expect(userId).toMatch(/^usr_[0-9a-z]{20}$/);
    expect(created.headers.get("location")).toBe(`${g.admin}/scim/v2/Users/${userId}`);
    expect(created.body).toMatchObject({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: "test.user@okta.local",
      externalId: "00ujl29u0le5T6Aj10h7",
      displayName: "Test User",
      name: { givenName: "Test", familyName: "User" },
      active: true,
      groups: [],
      meta: { resourceType: "User", location: `${g.admin}/scim/v2/Users/${userId}` },
    });
    expect(JSON.stringify(created.body)).not.toContain("1mz050nq");
    const user = await g.t.store.stores.users.get(userId);
    expect(user).toMatchObject({ email: "test.user@okta.local", name: "Test User", passwordHash: null });
    const again = await g.scim("GET", OKTA.FIND_USER);
    expect(again.body.totalResults).toBe(1);
    expect(again.body.Resources[0].id).toBe(userId);
  });

  it("replaces the user with the PUT of a changed profile", async () => {
    const replaced = await g.scim("PUT", `/Users/${userId}`, OKTA.replaceUser(userId));
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      id: userId,
      name: { givenName: "Another", familyName: "User" },
      active: true,
    });
    // PUT replaces: the externalId the body leaves out is gone.
    expect(replaced.body.externalId).toBeUndefined();
    expect((await g.scim("GET", `/Users/${userId}`)).body).toEqual(replaced.body);
  });

  it("pushes a group and adds the user: the mapping rule's role holds at once", async () => {
    const pushed = await g.scim("POST", "/Groups", OKTA.CREATE_GROUP);
    expect(pushed.status).toBe(201);
    groupId = pushed.body.id;
    expect(pushed.body).toMatchObject({ displayName: "Test SCIMv2", members: [] });
    person = await signedInPerson(g, "test.user@okta.local");
    const before = await fetch(`${g.admin}/admin/v1/accounts/acme`, { headers: { cookie: person.cookie } });
    expect(before.status).toBe(403);

    // Okta renames before each membership change; "Engineering" is the group a rule maps to member of acme.
    expect(
      (await g.scim("PATCH", `/Groups/${groupId}`, OKTA.renameGroup(groupId, "Engineering"))).status,
    ).toBe(204);
    const stranger = "usr_00000000000000000000";
    expect((await g.scim("PATCH", `/Groups/${groupId}`, OKTA.changeMembers(stranger, userId))).status).toBe(
      204,
    );
    expect(await g.t.store.stores.users.accountGrants("acme", userId)).toEqual({ scim: "member" });
    await makeApiToken(g, person);
    expect(await access(g, person)).toEqual([200, 200]);
    const group = await g.scim("GET", `/Groups/${groupId}`);
    expect(group.body).toMatchObject({
      displayName: "Engineering",
      members: [{ value: userId, display: "test.user@okta.local" }],
    });
    expect((await g.scim("GET", `/Users/${userId}`)).body.groups).toEqual([
      { value: groupId, display: "Engineering", $ref: `${g.admin}/scim/v2/Groups/${groupId}` },
    ]);
  });

  it("takes the role away at once when the membership is pushed without the user", async () => {
    expect((await g.scim("PATCH", `/Groups/${groupId}`, OKTA.replaceMembers([]))).status).toBe(204);
    expect(await g.t.store.stores.users.accountGrants("acme", userId)).toEqual({});
    expect(await access(g, person)).toEqual([403, 403]);
    expect((await g.scim("PATCH", `/Groups/${groupId}`, OKTA.replaceMembers([userId]))).status).toBe(204);
    expect(await access(g, person)).toEqual([200, 200]);
  });

  it("deactivates the user: the next request with their session or their API token gets 401", async () => {
    const deactivated = await g.scim("PATCH", `/Users/${userId}`, OKTA.DEACTIVATE_USER);
    expect(deactivated.status).toBe(200);
    expect(deactivated.body).toMatchObject({ id: userId, active: false });
    expect(await access(g, person)).toEqual([401, 401]);
    expect((await g.t.store.stores.users.get(userId))?.status).toBe("disabled");
    // Still a member of the group at Okta: SCIM still sees the user, inactive.
    expect((await g.scim("GET", OKTA.FIND_USER)).body.Resources[0]).toMatchObject({ active: false });
  });

  it("records every change in the person's log with the SCIM token as the actor", async () => {
    const entries = (await g.t.store.stores.audit.listUser(userId, 100)).reverse();
    const bySCIM = entries.filter((e) => e.actor === `scim:${g.tokenId}`).map((e) => e.action);
    expect(bySCIM).toEqual([
      "user.create",
      "user.update",
      "user.update",
      "user.group.add",
      "user.group.remove",
      "user.group.add",
      "user.disable",
      "token.revoke",
    ]);
    // The PUT: the display name, then the SCIM attributes it changed.
    expect(entries.filter((e) => e.action === "user.update").map((e) => e.details)).toEqual([
      { email: "test.user@okta.local", name: "Another User", previous_name: "Test User" },
      { email: "test.user@okta.local", attributes: ["externalId", "name.givenName"] },
    ]);
    // The rest are the person's own (their password set by the test, their sign-in, their API token made).
    expect(entries.filter((e) => !e.actor.startsWith("scim:")).map((e) => e.action)).toEqual([
      "user.password",
      "user.sign_in",
      "token.create",
    ]);
    const account = await g.t.store.stores.audit.list("acme", 100);
    const grants = account.filter((e) => e.action.startsWith("member.") && e.details.source === "scim");
    expect(grants.map((e) => [e.action, e.actor])).toEqual([
      ["member.grant", `scim:${g.tokenId}`],
      ["member.remove", `scim:${g.tokenId}`],
      ["member.grant", `scim:${g.tokenId}`],
    ]);
  });
});
