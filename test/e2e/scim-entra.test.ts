// Microsoft Entra ID's provisioning against the running gateway over real HTTP, request by request as
// Microsoft's SCIM tutorial records them (test/fixtures/scim/entra.ts): the userName query before the
// create, the group found by displayName without its members, members added and removed with Entra ID's
// capitalised ops and value lists, attribute updates by filtered paths, the disable with `active` as the
// string "False", the delete. A removed membership takes the role away at once; the disable ends the
// person's session and API token (401 on the next request); a deleted user is no longer seen (404).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as ENTRA from "../fixtures/scim/entra.js";
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

describe("Entra ID's provisioning", () => {
  let userId: string;
  let groupId: string;
  let person: Person;

  it("queries the userName, finds none, and creates the user", async () => {
    const none = await g.scim("GET", ENTRA.FIND_USER);
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
    const created = await g.scim("POST", "/Users", ENTRA.CREATE_USER);
    expect(created.status).toBe(201);
    userId = created.body.id;
    expect(created.body).toMatchObject({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      userName: ENTRA.USER_NAME,
      displayName: "givenName familyName",
      name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
      active: true,
      emails: [
        { value: "Test_User_11bb11bb-cc22-dd33-ee44-55ff55ff55ff@testuser.com", type: "work", primary: true },
      ],
    });
    // The enterprise extension is accepted and not kept.
    expect(created.body.schemas).toEqual(["urn:ietf:params:scim:schemas:core:2.0:User"]);
    const found = await g.scim("GET", ENTRA.FIND_USER);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id: userId }] });
    const byExternalId = await g.scim(
      "GET",
      `/Users?filter=${encodeURIComponent("externalId eq 0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef")}`,
    );
    expect(byExternalId.body.Resources.map((u: { id: string }) => u.id)).toEqual([userId]);
  });

  it("creates a group, finds it by displayName without its members, and adds the user", async () => {
    const created = await g.scim("POST", "/Groups", ENTRA.CREATE_GROUP);
    expect(created.status).toBe(201);
    groupId = created.body.id;
    const found = await g.scim("GET", ENTRA.FIND_GROUP);
    expect(found.status).toBe(200);
    expect(found.body.Resources).toEqual([
      {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
        id: groupId,
        externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
        displayName: "displayName",
        meta: expect.objectContaining({ resourceType: "Group" }),
      },
    ]);
    const added = await g.scim("PATCH", `/Groups/${groupId}`, ENTRA.addMembers(userId));
    expect(added.status).toBe(204);
    expect(added.body).toBeNull();
    // The rule names the group by its object id (as Entra ID's groups claim would): member of acme.
    expect(await g.t.store.stores.users.accountGrants("acme", userId)).toEqual({ scim: "member" });
    person = await signedInPerson(g, ENTRA.USER_NAME);
    await makeApiToken(g, person);
    expect(await access(g, person)).toEqual([200, 200]);
  });

  it("renames the group: the rule still matches it by its object id", async () => {
    expect((await g.scim("PATCH", `/Groups/${groupId}`, ENTRA.RENAME_GROUP)).status).toBe(204);
    expect((await g.scim("GET", `/Groups/${groupId}?excludedAttributes=members`)).body).toMatchObject({
      displayName: "1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName",
    });
    expect(await access(g, person)).toEqual([200, 200]);
  });

  it("updates multi-valued and single-valued attributes by their paths", async () => {
    const multi = await g.scim("PATCH", `/Users/${userId}`, ENTRA.UPDATE_MULTI_VALUED);
    expect(multi.status).toBe(200);
    expect(multi.body).toMatchObject({
      name: { familyName: "updatedFamilyName", givenName: "givenName" },
      emails: [{ value: "updatedEmail@microsoft.com", type: "work", primary: true }],
    });
    const [update] = await g.t.store.stores.audit.listUser(userId, 1);
    expect(update).toMatchObject({
      action: "user.update",
      actor: `scim:${g.tokenId}`,
      details: { attributes: ["name.familyName", "emails"] },
    });
    const single = await g.scim("PATCH", `/Users/${userId}`, ENTRA.UPDATE_USER_NAME);
    expect(single.status).toBe(200);
    expect(single.body.userName).toBe("5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com");
    expect((await g.t.store.stores.users.get(userId))?.email).toBe(
      "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com",
    );
    expect(await g.t.store.stores.users.byEmail(ENTRA.USER_NAME)).toBeNull();
    // The person keeps their sessions and tokens through a change of e-mail.
    expect(await access(g, person)).toEqual([200, 200]);
  });

  it("removes the user from the group: the role is gone at once", async () => {
    expect((await g.scim("PATCH", `/Groups/${groupId}`, ENTRA.removeMembers(userId))).status).toBe(204);
    expect(await g.t.store.stores.users.accountGrants("acme", userId)).toEqual({});
    expect(await access(g, person)).toEqual([403, 403]);
    expect((await g.scim("PATCH", `/Groups/${groupId}`, ENTRA.addMembers(userId))).status).toBe(204);
    expect(await access(g, person)).toEqual([200, 200]);
  });

  it('disables the user with active "False": the next request with their session or API token gets 401', async () => {
    const disabled = await g.scim("PATCH", `/Users/${userId}`, ENTRA.DISABLE_USER_AS_STRING);
    expect(disabled.status).toBe(200);
    expect(disabled.body.active).toBe(false);
    expect(await access(g, person)).toEqual([401, 401]);
    // The tutorial's own shape (a boolean) on a disabled user changes nothing more.
    const again = await g.scim("PATCH", `/Users/${userId}`, ENTRA.DISABLE_USER);
    expect(again.body.active).toBe(false);
  });

  it("deletes the user: gone from SCIM (404), kept disabled for the audit trail, out of the group", async () => {
    const deleted = await g.scim("DELETE", `/Users/${userId}`);
    expect(deleted.status).toBe(204);
    const gone = await g.scim("GET", `/Users/${userId}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
      status: "404",
      detail: `Resource ${userId} not found.`,
    });
    expect(
      (
        await g.scim(
          "GET",
          `/Users?filter=${encodeURIComponent('userName eq "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com"')}`,
        )
      ).body.totalResults,
    ).toBe(0);
    expect((await g.scim("PATCH", `/Users/${userId}`, ENTRA.DISABLE_USER)).status).toBe(404);
    expect((await g.scim("DELETE", `/Users/${userId}`)).status).toBe(404);
    expect((await g.t.store.stores.users.get(userId))?.status).toBe("disabled");
    expect((await g.scim("GET", `/Groups/${groupId}`)).body.members).toEqual([]);
    expect(await g.t.store.stores.users.accountGrants("acme", userId)).toEqual({});
    const log = (await g.t.store.stores.audit.listUser(userId, 5)).map((e) => e.action);
    expect(log[0]).toBe("user.delete");
  });

  it("provisions the same person again after the delete: the same user, active, with no token back", async () => {
    const body = { ...ENTRA.CREATE_USER, userName: "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com" };
    const back = await g.scim("POST", "/Users", body);
    expect(back.status).toBe(201);
    expect(back.body).toMatchObject({ id: userId, active: true });
    expect(await g.t.store.stores.apiTokens.list(userId)).toEqual([]);
  });

  it("deletes the group", async () => {
    expect((await g.scim("DELETE", `/Groups/${groupId}`)).status).toBe(204);
    expect((await g.scim("GET", `/Groups/${groupId}`)).status).toBe(404);
    expect((await g.scim("GET", ENTRA.FIND_GROUP)).body.totalResults).toBe(0);
  });
});
