// The admin API's sharing routes (admin/sharing-routes.ts) through the real admin listener over HTTP: an
// account's weight, priority and longest wait (operators only), a key's own priority and wait (whoever may
// change the account's keys; a key under another account's path is unknown), and an account's queueing —
// each route's status, its validation errors naming the field, and who may reach it.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AdminApi, startAdminApi } from "../helpers/admin-api.js";

let api: AdminApi;
let keyId: string;
beforeEach(async () => {
  api = await startAdminApi();
  keyId = (await api.store.keyService.create({ accountId: "acme", name: "batch" }, { kind: "cli" })).record
    .id;
});
afterEach(() => api.close());

describe("PUT /admin/v1/accounts/{accountId}/sharing", () => {
  it("sets the account's weight, priority and longest wait, null back to the defaults", async () => {
    const set = await api.call("PUT", "/admin/v1/accounts/acme/sharing", {
      body: { weight: 3, priority: -5, max_wait_ms: 2000 },
    });
    expect(set.status).toBe(200);
    expect(set.body.sharing).toEqual({ weight: 3, priority: -5, max_wait_ms: 2000 });
    const reset = await api.call("PUT", "/admin/v1/accounts/acme/sharing", {
      body: { weight: null, priority: null },
    });
    expect(reset.body.sharing).toEqual({ weight: 1, priority: null, max_wait_ms: 2000 });
  });

  it("refuses a value of the wrong type or out of range, naming the field, and writes nothing", async () => {
    const typed = await api.call("PUT", "/admin/v1/accounts/acme/sharing", { body: { weight: "3" } });
    expect(typed.status).toBe(400);
    expect(typed.body.error.message).toMatch(/^Invalid body: weight: /);
    const range = await api.call("PUT", "/admin/v1/accounts/acme/sharing", { body: { weight: 1001 } });
    expect(range.status).toBe(400);
    expect(range.body.error.message).toContain("weight");
    expect((await api.call("GET", "/admin/v1/accounts/acme")).body.sharing.weight).toBe(1);
  });

  it("is the operators': the account's own token is refused with 403", async () => {
    const own = await api.call("PUT", "/admin/v1/accounts/acme/sharing", {
      as: api.acmeToken,
      body: { weight: 9 },
    });
    expect(own.status).toBe(403);
    expect((await api.call("GET", "/admin/v1/accounts/acme")).body.sharing.weight).toBe(1);
  });
});

describe("PUT …/keys/{keyId}/sharing", () => {
  it("sets the key's own priority and wait for the account's token, answering the key", async () => {
    const set = await api.call("PUT", `/admin/v1/accounts/acme/keys/${keyId}/sharing`, {
      as: api.acmeToken,
      body: { priority: 20, max_wait_ms: 500 },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: keyId, sharing: { priority: 20, max_wait_ms: 500 } });
  });

  it("refuses a key under another account's path as unknown, and another account's token", async () => {
    const theirs = await api.call("PUT", `/admin/v1/accounts/other/keys/${keyId}/sharing`, {
      body: { priority: 1 },
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe("key_not_found");
    const other = (await api.store.keyService.create({ accountId: "other", name: "k" }, { kind: "cli" }))
      .record.id;
    const refused = await api.call("PUT", `/admin/v1/accounts/other/keys/${other}/sharing`, {
      as: api.acmeToken,
      body: { priority: 1 },
    });
    expect(refused.status).toBe(403);
  });

  it("refuses a body field it does not take, naming it", async () => {
    const weight = await api.call("PUT", `/admin/v1/accounts/acme/keys/${keyId}/sharing`, {
      body: { weight: 2 },
    });
    expect(weight.status).toBe(400);
    expect(weight.body.error.message).toContain("unknown field weight");
  });
});

describe("GET /admin/v1/accounts/{accountId}/queue", () => {
  it("answers no limit and no replica's state where the replica has no gate, to the account", async () => {
    const queue = await api.call("GET", "/admin/v1/accounts/acme/queue", { as: api.acmeToken });
    expect(queue.status).toBe(200);
    expect(queue.body).toMatchObject({ limit: null, shared: false, replica: null });
    expect((await api.call("GET", "/admin/v1/accounts/other/queue", { as: api.acmeToken })).status).toBe(403);
    expect((await api.call("GET", "/admin/v1/accounts/ghost/queue")).status).toBe(404);
  });
});
