// The admin API's member routes (admin/member-routes.ts) through the real admin listener over HTTP: an
// account's members with their role and its grants, a member's direct role changed, a member removed, and
// invitations listed, sent (the link in that answer) and revoked — each route's status, its validation errors
// naming the field, an unknown person or account, and another account's token refused.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DIRECT } from "../../src/core/roles.js";
import { ACTOR } from "../helpers/actor.js";
import { type AdminApi, startAdminApi } from "../helpers/admin-api.js";
import { testIdentity } from "../helpers/identity.js";

let api: AdminApi;
let annId: string;
beforeEach(async () => {
  api = await startAdminApi();
  const identity = testIdentity(api.store);
  const ann = await identity.users.create({ email: "ann@example.com", name: "Ann" }, ACTOR);
  await identity.grants.grant("acme", ann.id, DIRECT, "member", ACTOR);
  annId = ann.id;
});
afterEach(() => api.close());

const MEMBERS = "/admin/v1/accounts/acme/members";
const INVITATIONS = "/admin/v1/accounts/acme/invitations";

describe("members", () => {
  it("are listed to the account with their role and the grants it comes from", async () => {
    const listed = await api.call("GET", MEMBERS, { as: api.acmeToken });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      members: [
        {
          user_id: annId,
          name: "Ann",
          email: "ann@example.com",
          status: "active",
          role: "member",
          grants: [{ source: "direct", role: "member" }],
        },
      ],
    });
  });

  it("have their direct role changed, answering the member as now", async () => {
    const changed = await api.call("PATCH", `${MEMBERS}/${annId}`, {
      as: api.acmeToken,
      body: { role: "viewer" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      user_id: annId,
      role: "viewer",
      grants: [{ source: "direct", role: "viewer" }],
    });
  });

  it("refuse a role that is none, naming role, and a person who is no member with 404", async () => {
    const role = await api.call("PATCH", `${MEMBERS}/${annId}`, { body: { role: "admin" } });
    expect(role.status).toBe(400);
    expect(role.body.error.message).toMatch(/^Invalid body: role: /);
    const stranger = await api.call("PATCH", `/admin/v1/accounts/other/members/${annId}`, {
      body: { role: "viewer" },
    });
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe("member_not_found");
    expect((await api.call("GET", MEMBERS)).body.members[0].role).toBe("member");
  });

  it("are removed, and the list of an account that does not exist is 404", async () => {
    const removed = await api.call("DELETE", `${MEMBERS}/${annId}`, { as: api.acmeToken });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ removed: true });
    expect((await api.call("GET", MEMBERS)).body.members).toEqual([]);
    const ghost = await api.call("GET", "/admin/v1/accounts/ghost/members");
    expect(ghost.status).toBe(404);
    expect(ghost.body.error.code).toBe("account_not_found");
  });

  it("are not another account's token's to read or change", async () => {
    const as = api.acmeToken;
    expect((await api.call("GET", "/admin/v1/accounts/other/members", { as })).status).toBe(403);
    expect(
      (await api.call("PATCH", `/admin/v1/accounts/other/members/${annId}`, { as, body: { role: "viewer" } }))
        .status,
    ).toBe(403);
    expect((await api.call("DELETE", `/admin/v1/accounts/other/members/${annId}`, { as })).status).toBe(403);
  });
});

describe("invitations", () => {
  it("are sent with 201 and their one-time link, listed without it, and revoked", async () => {
    const sent = await api.call("POST", INVITATIONS, {
      as: api.acmeToken,
      body: { email: "boris@example.com", role: "viewer" },
    });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({
      email: "boris@example.com",
      role: "viewer",
      created_at: new Date(api.store.clock.now()).toISOString(),
      url: expect.stringMatching(/\/#\/invite\/\S+$/),
    });
    expect(Date.parse(sent.body.expires_at)).toBeGreaterThan(api.store.clock.now());
    const listed = await api.call("GET", INVITATIONS, { as: api.acmeToken });
    expect(listed.status).toBe(200);
    const { url: _, ...view } = sent.body;
    expect(listed.body).toEqual({ invitations: [view] });
    const revoked = await api.call("DELETE", `${INVITATIONS}/${sent.body.id}`, { as: api.acmeToken });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ removed: true });
    expect((await api.call("GET", INVITATIONS)).body.invitations).toEqual([]);
  });

  it("refuse a body without an e-mail or with a role that is none, naming the field", async () => {
    const email = await api.call("POST", INVITATIONS, { body: { role: "viewer" } });
    expect(email.status).toBe(400);
    expect(email.body.error.message).toMatch(/^Invalid body: email: /);
    const role = await api.call("POST", INVITATIONS, { body: { email: "b@example.com", role: "god" } });
    expect(role.body.error.message).toMatch(/^Invalid body: role: /);
    expect((await api.call("GET", INVITATIONS)).body.invitations).toEqual([]);
  });

  it("are not another account's token's to send, list or revoke", async () => {
    const as = api.acmeToken;
    const path = "/admin/v1/accounts/other/invitations";
    expect(
      (await api.call("POST", path, { as, body: { email: "b@example.com", role: "viewer" } })).status,
    ).toBe(403);
    expect((await api.call("GET", path, { as })).status).toBe(403);
    expect((await api.call("GET", path)).body.invitations).toEqual([]);
  });
});
