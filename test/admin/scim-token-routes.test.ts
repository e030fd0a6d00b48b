// The admin API's SCIM token routes (admin/scim-token-routes.ts, their shapes and a token's view in
// admin/scim-schemas.ts) through the real admin listener over HTTP: a SCIM token made (its value in that
// answer only), listed by its hint, revoked, and the SCIM log — each route's status, its validation errors
// naming the field, and that an account's token reaches none of them.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scimTokenView } from "../../src/admin/scim-schemas.js";
import type { ScimTokenRecord } from "../../src/store/people/scim-token-store.js";
import { type AdminApi, startAdminApi } from "../helpers/admin-api.js";

let api: AdminApi;
beforeEach(async () => {
  api = await startAdminApi();
});
afterEach(() => api.close());

describe("SCIM tokens", () => {
  it("are made with 201, the value in that answer only, and listed by their hint", async () => {
    const made = await api.call("POST", "/admin/v1/scim/tokens", { body: { name: "okta" } });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.any(String),
      name: "okta",
      hint: made.body.token.slice(-4),
      created_at: new Date(api.store.clock.now()).toISOString(),
      created_by: "admin",
      last_used_at: null,
      token: expect.stringMatching(/^sk-tunnel-scim-/),
    });
    const listed = await api.call("GET", "/admin/v1/scim/tokens");
    expect(listed.status).toBe(200);
    const { token: _, ...view } = made.body;
    expect(listed.body).toEqual({ tokens: [view] });
    expect(JSON.stringify(listed.body)).not.toContain(made.body.token);
  });

  it("are revoked by id, logged in the SCIM log newest first; an unknown id answers 404", async () => {
    const made = await api.call("POST", "/admin/v1/scim/tokens", { body: { name: "okta" } });
    const revoked = await api.call("DELETE", `/admin/v1/scim/tokens/${made.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ revoked: 1 });
    expect((await api.call("GET", "/admin/v1/scim/tokens")).body.tokens).toEqual([]);
    const again = await api.call("DELETE", `/admin/v1/scim/tokens/${made.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("scim_token_not_found");
    const log = await api.call("GET", "/admin/v1/scim/audit?limit=1");
    expect(log.status).toBe(200);
    expect(log.body.entries).toHaveLength(1);
    expect(JSON.stringify(log.body.entries[0])).toContain("revoke");
    expect((await api.call("GET", "/admin/v1/scim/audit")).body.entries).toHaveLength(2);
  });

  it("refuse a body without a name, with another field, and a bad limit, naming them", async () => {
    const nameless = await api.call("POST", "/admin/v1/scim/tokens", { body: {} });
    expect(nameless.status).toBe(400);
    expect(nameless.body.error.message).toMatch(/^Invalid body: name: /);
    const extra = await api.call("POST", "/admin/v1/scim/tokens", { body: { name: "x", scope: "all" } });
    expect(extra.body.error.message).toContain("unknown field scope");
    const limit = await api.call("GET", "/admin/v1/scim/audit?limit=none");
    expect(limit.body.error.message).toBe("Invalid query: limit: must be a whole number from 1 on.");
    expect((await api.call("GET", "/admin/v1/scim/tokens")).body.tokens).toEqual([]);
  });

  it("are the operators': an account's token reaches none of the routes", async () => {
    const as = api.acmeToken;
    expect((await api.call("GET", "/admin/v1/scim/tokens", { as })).status).toBe(403);
    expect((await api.call("POST", "/admin/v1/scim/tokens", { as, body: { name: "x" } })).status).toBe(403);
    expect((await api.call("GET", "/admin/v1/scim/audit", { as })).status).toBe(403);
    expect((await api.call("GET", "/admin/v1/scim/tokens")).body.tokens).toEqual([]);
  });
});

describe("scimTokenView", () => {
  it("writes times as ISO-8601, a token never used with null", () => {
    const record: ScimTokenRecord = {
      id: "st_1",
      name: "okta",
      hash: "a".repeat(64),
      hint: "abcd",
      createdAt: 0,
      createdBy: "cli",
      lastUsedAt: null,
    };
    expect(scimTokenView(record)).toEqual({
      id: "st_1",
      name: "okta",
      hint: "abcd",
      created_at: "1970-01-01T00:00:00.000Z",
      created_by: "cli",
      last_used_at: null,
    });
    expect(scimTokenView({ ...record, lastUsedAt: 1000 }).last_used_at).toBe("1970-01-01T00:00:01.000Z");
  });
});
