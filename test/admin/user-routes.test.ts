// The admin API's user routes (admin/user-routes.ts; the unlock and provider-link shapes of
// admin/link-schemas.ts) through the real admin listener over HTTP: every person,
// one person with their memberships, tokens and sessions, disabling and enabling, lifting a sign-in lock,
// allowing a provider link, revoking a person's API token, and the people's audit log — each route's status,
// its refusals (an unknown person, a malformed id, an unknown provider, a body field), and that an account's
// token reaches none of them.

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

describe("users", () => {
  it("are listed to operators", async () => {
    const listed = await api.call("GET", "/admin/v1/users");
    expect(listed.status).toBe(200);
    expect(listed.body.users).toEqual([
      expect.objectContaining({ id: annId, name: "Ann", email: "ann@example.com" }),
    ]);
  });

  it("are shown one at a time with their memberships, tokens and sessions", async () => {
    const shown = await api.call("GET", `/admin/v1/users/${annId}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      id: annId,
      memberships: [{ account_id: "acme", role: "member", grants: [{ source: "direct", role: "member" }] }],
      tokens: [],
      sessions: 0,
    });
  });

  it("answer an unknown person with 404 and a malformed id with 400", async () => {
    // Ann's id with its last character changed (to "x", or to "y" when it is an "x": ids are random).
    const unknown = await api.call(
      "GET",
      `/admin/v1/users/${annId.slice(0, -1)}${annId.endsWith("x") ? "y" : "x"}`,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("user_not_found");
    expect((await api.call("GET", "/admin/v1/users/not%20an%20id")).status).toBe(400);
    expect((await api.call("POST", "/admin/v1/users/not%20an%20id/disable")).status).toBe(400);
  });

  it("are disabled and enabled, each answering the person and written to the people's audit log", async () => {
    const disabled = await api.call("POST", `/admin/v1/users/${annId}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ id: annId, status: "disabled" });
    const enabled = await api.call("POST", `/admin/v1/users/${annId}/enable`);
    expect(enabled.body.status).toBe("active");
    const audit = await api.call("GET", "/admin/v1/users/audit?limit=2");
    expect(audit.status).toBe(200);
    expect(audit.body.entries.map((entry: { action: string }) => entry.action)).toEqual([
      "user.enable",
      "user.disable",
    ]);
    const bad = await api.call("GET", "/admin/v1/users/audit?limit=0");
    expect(bad.body.error.message).toBe("Invalid query: limit: must be a whole number from 1 on.");
  });

  it("are unlocked, answering whether there was a lock to lift", async () => {
    const unlocked = await api.call("POST", `/admin/v1/users/${annId}/unlock`);
    expect(unlocked.status).toBe(200);
    expect(unlocked.body).toEqual({ unlocked: false });
  });

  it("refuse a provider link to a provider that is not configured, and a body without one, naming provider", async () => {
    const missing = await api.call("POST", `/admin/v1/users/${annId}/allow-link`, { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/^Invalid body: provider: /);
    const unknown = await api.call("POST", `/admin/v1/users/${annId}/allow-link`, {
      body: { provider: "corp" },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({
      code: "provider_not_found",
      message: "no identity provider corp is configured",
    });
  });

  it("answer a token the person does not have with 404 token_not_found", async () => {
    const revoked = await api.call("DELETE", `/admin/v1/users/${annId}/tokens/tok_nothing`);
    expect(revoked.status).toBe(404);
    expect(revoked.body.error.code).toBe("token_not_found");
  });

  it("are the operators': an account's token reaches none of the routes", async () => {
    const as = api.acmeToken;
    for (const [method, path] of [
      ["GET", "/admin/v1/users"],
      ["GET", "/admin/v1/users/audit"],
      ["GET", `/admin/v1/users/${annId}`],
      ["POST", `/admin/v1/users/${annId}/disable`],
      ["POST", `/admin/v1/users/${annId}/unlock`],
    ] as const) {
      expect((await api.call(method, path, { as })).status, path).toBe(403);
    }
    expect((await api.call("GET", `/admin/v1/users/${annId}`)).body.status).toBe("active");
  });
});
