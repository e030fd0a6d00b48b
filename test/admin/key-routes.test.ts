// The admin API's key routes (admin/key-routes.ts) through the real admin listener over HTTP: a key created
// (its value in that answer only), listed, shown, changed, rotated, disabled, enabled and revoked, and its
// daily usage — each route's status, its validation errors naming the field, a key asked for under an
// account that is not its own answered as unknown, and another account's token refused.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/auth/api-key.js";
import { type AdminApi, startAdminApi } from "../helpers/admin-api.js";

let api: AdminApi;
beforeEach(async () => {
  api = await startAdminApi();
});
afterEach(() => api.close());

const KEYS = "/admin/v1/accounts/acme/keys";

async function created(
  body: Record<string, unknown> = { name: "batch" },
): Promise<{ id: string; key: string }> {
  const answer = await api.call("POST", KEYS, { as: api.acmeToken, body });
  expect(answer.status).toBe(201);
  return answer.body;
}

describe("POST and GET /admin/v1/accounts/{accountId}/keys", () => {
  it("creates a key with 201, its value in that answer only, and lists it to the account", async () => {
    const key = await created({ name: "batch", budget: 10, period: "day", rpm: 60, alert_at: [50] });
    expect(key.key).toMatch(/^sk-/);
    expect(key).toMatchObject({ name: "batch", state: "active", limits: { rpm: 60 }, alert_at: [50] });
    expect((await api.store.keys.lookup(hashApiKey(key.key)))?.keyId).toBe(key.id);
    const listed = await api.call("GET", KEYS, { as: api.acmeToken });
    expect(listed.status).toBe(200);
    expect(listed.body.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect(JSON.stringify(listed.body)).not.toContain(key.key);
  });

  it("refuses a body without a name, with an unknown field, or with budgets beside a budget, naming them", async () => {
    const nameless = await api.call("POST", KEYS, { body: { budget: 1 } });
    expect(nameless.status).toBe(400);
    expect(nameless.body.error.message).toMatch(/^Invalid body: name: /);
    const unknown = await api.call("POST", KEYS, { body: { name: "k", colour: 1 } });
    expect(unknown.body.error.message).toContain("unknown field colour");
    const both = await api.call("POST", KEYS, {
      body: { name: "k", budget: 1, budgets: [{ period: "day", amount: 1 }] },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toBe("give budgets, or budget and period, not both");
    expect((await api.call("GET", KEYS)).body).toEqual([]);
  });

  it("are not another account's: its token is refused with 403", async () => {
    expect((await api.call("GET", "/admin/v1/accounts/other/keys", { as: api.acmeToken })).status).toBe(403);
    const create = await api.call("POST", "/admin/v1/accounts/other/keys", {
      as: api.acmeToken,
      body: { name: "k" },
    });
    expect(create.status).toBe(403);
    expect((await api.call("GET", "/admin/v1/accounts/other/keys")).body).toEqual([]);
  });
});

describe("a key's own routes", () => {
  it("show and change the key, answering it as it now is", async () => {
    const { id } = await created();
    const shown = await api.call("GET", `${KEYS}/${id}`, { as: api.acmeToken });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id, name: "batch" });
    const changed = await api.call("PATCH", `${KEYS}/${id}`, {
      as: api.acmeToken,
      body: { name: "nightly", budgets: [{ period: "day", amount: 5 }] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      name: "nightly",
      budgets: [expect.objectContaining({ period: "day", amount: 5 })],
    });
  });

  it("rotate the value, the new one in that answer, the old one kept through a grace period", async () => {
    const { id, key } = await created();
    const rotated = await api.call("POST", `${KEYS}/${id}/rotate`, {
      as: api.acmeToken,
      body: { grace: "1h" },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.key).not.toBe(key);
    expect(rotated.body.state).toBe("rotating");
    const refused = await api.call("POST", `${KEYS}/${id}/rotate`, { body: { grace: "8d" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("grace");
  });

  it("disable, enable and revoke the key, each answering its state", async () => {
    const { id } = await created();
    expect((await api.call("POST", `${KEYS}/${id}/disable`)).body.state).toBe("disabled");
    expect((await api.call("POST", `${KEYS}/${id}/enable`)).body.state).toBe("active");
    const revoked = await api.call("POST", `${KEYS}/${id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.state).toBe("revoked");
  });

  it("answer the key's usage per day from and to, refusing a bad range naming the parameter", async () => {
    const { id } = await created();
    const usage = await api.call("GET", `${KEYS}/${id}/usage?from=2026-11-19&to=2026-11-21`, {
      as: api.acmeToken,
    });
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({ key_id: id, from: "2026-11-19", to: "2026-11-21" });
    expect(usage.body.days.map((day: { date: string }) => day.date)).toEqual([
      "2026-11-19",
      "2026-11-20",
      "2026-11-21",
    ]);
    const backwards = await api.call("GET", `${KEYS}/${id}/usage?from=2026-11-21&to=2026-11-19`);
    expect(backwards.status).toBe(400);
    expect(backwards.body.error.message).toBe("from (2026-11-21) must not be after to (2026-11-19)");
    const unknown = await api.call("GET", `${KEYS}/${id}/usage?day=1`);
    expect(unknown.body.error.message).toContain("unknown parameter day");
  });

  it("answer 404 key_not_found for a key under an account that is not its own, changing nothing", async () => {
    const { record } = await api.store.keyService.create(
      { accountId: "other", name: "theirs" },
      { kind: "cli" },
    );
    for (const [method, path] of [
      ["GET", ""],
      ["POST", "/revoke"],
      ["POST", "/disable"],
      ["GET", "/usage"],
    ] as const) {
      const answer = await api.call(method, `${KEYS}/${record.id}${path}`, { as: api.acmeToken });
      expect(answer.status, path).toBe(404);
      expect(answer.body.error).toMatchObject({
        code: "key_not_found",
        message: `account acme has no key ${record.id}`,
      });
    }
    expect((await api.call("GET", `/admin/v1/accounts/other/keys/${record.id}`)).body.state).toBe("active");
    expect((await api.call("GET", `${KEYS}/key_aaaaaaaaaaaaaaaaaaaa`)).body.error.code).toBe("key_not_found");
    expect((await api.call("GET", `${KEYS}/not-a-key`)).status).toBe(400);
  });

  it("are not another account's token's to reach", async () => {
    const { record } = await api.store.keyService.create(
      { accountId: "other", name: "theirs" },
      { kind: "cli" },
    );
    const path = `/admin/v1/accounts/other/keys/${record.id}`;
    expect((await api.call("GET", path, { as: api.acmeToken })).status).toBe(403);
    expect((await api.call("POST", `${path}/revoke`, { as: api.acmeToken })).status).toBe(403);
    expect((await api.call("GET", path)).body.state).toBe("active");
  });
});
