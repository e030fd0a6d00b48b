// What SCIM changes do to people's access, over real HTTP against the running gateway: group memberships give
// "scim" grants through the provider's mapping rules — an account role, an operator role — and take them away
// at once, never touching a grant of another source; deleting an active person ends their session and API
// token at once; a SCIM token is no credential for anything else.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  access,
  makeApiToken,
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

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

async function provision(email: string): Promise<string> {
  const made = await g.scim("POST", "/Users", { schemas: [USER], userName: email });
  expect(made.status).toBe(201);
  return made.body.id;
}

async function group(displayName: string, members: string[]): Promise<string> {
  const made = await g.scim("POST", "/Groups", {
    schemas: [GROUP],
    displayName,
    members: members.map((value) => ({ value })),
  });
  expect(made.status).toBe(201);
  return made.body.id;
}

function members(op: "add" | "remove", userId: string) {
  return op === "add"
    ? { schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value: userId }] }] }
    : { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${userId}"]` }] };
}

describe("SCIM grants", () => {
  it("leaves a grant of another source alone: removing the group leaves the direct role", async () => {
    const userId = await provision("dora@example.com");
    await g.t.store.stores.users.setAccountGrant("acme", userId, "direct", "viewer", "");
    const groupId = await group("Engineering", [userId]);
    expect(await g.t.store.stores.users.accountGrants("acme", userId)).toEqual({
      direct: "viewer",
      scim: "member",
    });
    const person = await signedInPerson(g, "dora@example.com");
    await makeApiToken(g, person, "member");
    expect(await access(g, person)).toEqual([200, 200]);
    expect((await g.scim("PATCH", `/Groups/${groupId}`, members("remove", userId))).status).toBe(204);
    expect(await g.t.store.stores.users.accountGrants("acme", userId)).toEqual({ direct: "viewer" });
    // The session reads as a viewer now; the member token holds more than the person does, so it holds nothing.
    const keys = await fetch(`${g.admin}/admin/v1/accounts/acme/keys`, {
      headers: { cookie: person.cookie },
    });
    expect(keys.status).toBe(200);
    const byToken = await fetch(`${g.admin}/admin/v1/accounts/acme`, {
      headers: { authorization: `Bearer ${person.apiToken}` },
    });
    expect(byToken.status).toBe(403);
    // Deleting the group takes nothing more: the direct grant is not SCIM's.
    expect((await g.scim("DELETE", `/Groups/${groupId}`)).status).toBe(204);
    expect(await g.t.store.stores.users.accountGrants("acme", userId)).toEqual({ direct: "viewer" });
  });

  it("gives and takes an operator role, and follows a group's rename", async () => {
    const userId = await provision("olga@example.com");
    const groupId = await group("Admins", [userId]);
    expect((await g.t.store.stores.users.get(userId))?.operatorGrants).toEqual({ scim: "operator" });
    const rename = {
      schemas: [PATCH],
      Operations: [{ op: "replace", path: "displayName", value: "Former admins" }],
    };
    expect((await g.scim("PATCH", `/Groups/${groupId}`, rename)).status).toBe(204);
    expect((await g.t.store.stores.users.get(userId))?.operatorGrants).toEqual({});
    const log = await g.t.store.stores.audit.listUser(userId, 10);
    expect(log.filter((e) => e.action === "user.operator").map((e) => e.details)).toEqual([
      { source: "scim", role: null },
      { source: "scim", role: "operator" },
    ]);
    const scimLog = await g.adminCall("GET", "/admin/v1/scim/audit?limit=5", ADMIN_TOKEN);
    expect(scimLog.body.entries[0]).toMatchObject({
      action: "scim.group.update",
      actor: `scim:${g.tokenId}`,
      details: { group_id: groupId, display_name: "Former admins", previous_display_name: "Admins" },
    });
  });

  it("ends an active person's session and API token at once when they are deleted", async () => {
    const userId = await provision("pavel@example.com");
    const groupId = await group("Team acme", []);
    await g.t.store.stores.users.setAccountGrant("acme", userId, "direct", "member", "");
    const person = await signedInPerson(g, "pavel@example.com");
    await makeApiToken(g, person, "member");
    expect(await access(g, person)).toEqual([200, 200]);
    expect((await g.scim("PATCH", `/Groups/${groupId}`, members("add", userId))).status).toBe(204);
    expect((await g.scim("DELETE", `/Users/${userId}`)).status).toBe(204);
    expect(await access(g, person)).toEqual([401, 401]);
    expect((await g.scim("GET", `/Groups/${groupId}`)).body.members).toEqual([]);
    const signIn = await fetch(`${g.admin}/auth/password`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: g.admin },
      body: JSON.stringify({ email: "pavel@example.com", password: "a-password-long-enough-1" }),
    });
    expect(signIn.status).toBe(403);
  });
});

describe("active", () => {
  it("is kept by a PUT that leaves it out, and changed by one that says it", async () => {
    const made = await g.scim("POST", "/Users", {
      schemas: [USER],
      userName: "quiet@example.com",
      active: false,
    });
    expect(made.body.active).toBe(false);
    const id = made.body.id as string;
    const put = await g.scim("PUT", `/Users/${id}`, { schemas: [USER], userName: "quiet@example.com" });
    expect(put.body.active).toBe(false);
    const back = await g.scim("PUT", `/Users/${id}`, {
      schemas: [USER],
      userName: "quiet@example.com",
      active: true,
    });
    expect(back.body.active).toBe(true);
    expect((await g.t.store.stores.users.get(id))?.status).toBe("active");
  });
});
