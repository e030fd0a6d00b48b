// The SCIM service's routing at /scim/v2 over a real gateway's admin listener (what directories do with it:
// test/e2e/scim-*.test.ts): a SCIM token only; discovery documents listed and by id; Users and Groups by
// method, a created resource's Location, 204 where nothing is answered (a group's PATCH — Entra ID's wish —
// and DELETE), members left out when asked; 405 naming what is allowed, 404 for any other path.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, type ScimGateway, startScimGateway } from "../helpers/scim.js";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
let g: ScimGateway;
beforeAll(async () => {
  g = await startScimGateway();
});
afterAll(() => g?.close());

describe("the SCIM handler", () => {
  it("takes a SCIM token only: none, or the admin token, is 401 with how to authenticate", async () => {
    for (const token of [null, ADMIN_TOKEN]) {
      const answer = await g.scim("GET", "/Users", undefined, token);
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toContain("Bearer");
    }
  });

  it("serves the discovery documents, listed and by id, for GET only", async () => {
    expect((await g.scim("GET", "/ServiceProviderConfig")).status).toBe(200);
    const types = await g.scim("GET", "/ResourceTypes");
    expect(types.body.totalResults).toBe(types.body.Resources.length);
    expect((await g.scim("GET", "/ResourceTypes/User")).body.id).toBe("User");
    expect((await g.scim("GET", "/Schemas/nothing")).status).toBe(404);
    const post = await g.scim("POST", "/ServiceProviderConfig", {});
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
  });

  it("answers 404 for any other path, /scim/v2 itself and a malformed segment included", async () => {
    for (const path of ["", "/Things", "/Users/a/b", "/Users/%E0%A4%A"])
      expect((await g.scim("GET", path)).status, path).toBe(404);
  });

  it("creates a user with its Location, projects the attributes asked for, and deletes with 204", async () => {
    const created = await g.scim("POST", "/Users", { schemas: [USER], userName: "ann@example.com" });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`${g.admin}/scim/v2/Users/${created.body.id}`);
    const projected = await g.scim("GET", `/Users/${created.body.id}?attributes=userName`);
    expect(projected.body.userName).toBe("ann@example.com");
    expect(projected.body.name).toBeUndefined();
    expect((await g.scim("PUT", "/Users", {})).headers.get("allow")).toBe("GET, POST");
    expect((await g.scim("POST", `/Users/${created.body.id}`, {})).headers.get("allow")).toBe(
      "GET, PUT, PATCH, DELETE",
    );
    expect((await g.scim("DELETE", `/Users/${created.body.id}`)).status).toBe(204);
    expect((await g.scim("GET", `/Users/${created.body.id}`)).status).toBe(404);
  });

  it("answers a group's PATCH with 204, and leaves members out where the client asks", async () => {
    const bob = await g.scim("POST", "/Users", { schemas: [USER], userName: "bob@example.com" });
    const group = await g.scim("POST", "/Groups", {
      schemas: [GROUP],
      displayName: "Handler Group",
      members: [{ value: bob.body.id }],
    });
    expect(group.status).toBe(201);
    expect(group.headers.get("location")).toBe(`${g.admin}/scim/v2/Groups/${group.body.id}`);
    const patched = await g.scim("PATCH", `/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", path: "displayName", value: "Handler Group 2" }],
    });
    expect([patched.status, patched.body ?? null]).toEqual([204, null]);
    const bare = await g.scim("GET", `/Groups/${group.body.id}?excludedAttributes=members`);
    expect(bare.body).toMatchObject({ displayName: "Handler Group 2" });
    expect(bare.body.members).toBeUndefined();
    const listed = await g.scim("GET", "/Groups?attributes=displayName");
    expect(listed.body.Resources.every((r: { members?: unknown }) => r.members === undefined)).toBe(true);
    expect((await g.scim("DELETE", `/Groups/${group.body.id}`)).status).toBe(204);
  });
});
