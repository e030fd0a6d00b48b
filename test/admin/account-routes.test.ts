// The admin API's account routes (admin/account-routes.ts) through the real admin listener over HTTP: the
// accounts a caller sees, creating one, showing it, top-ups (reported for the balance gauge), an account's
// own budgets, and the audit logs — each route's status, its validation errors naming the bad field, and who
// may reach it (an account's token on its own account only, never on an operator's route).

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AdminApi, startAdminApi } from "../helpers/admin-api.js";

let api: AdminApi;
beforeEach(async () => {
  api = await startAdminApi();
});
afterEach(() => api.close());

describe("GET /admin/v1/accounts", () => {
  it("lists every account to an operator, and only its own to an account's token", async () => {
    const all = await api.call("GET", "/admin/v1/accounts");
    expect(all.status).toBe(200);
    expect(all.body.map((account: { id: string }) => account.id).sort()).toEqual(["acme", "other"]);
    const own = await api.call("GET", "/admin/v1/accounts", { as: api.acmeToken });
    expect(own.status).toBe(200);
    expect(own.body).toEqual([
      expect.objectContaining({ id: "acme", name: "Acme", balance: 100, token: expect.anything() }),
    ]);
  });

  it("asks for a credential with 401", async () => {
    expect((await api.call("GET", "/admin/v1/accounts", { as: null })).status).toBe(401);
  });
});

describe("POST /admin/v1/accounts", () => {
  it("creates an account with 201, its opening balance in rubles", async () => {
    const created = await api.call("POST", "/admin/v1/accounts", {
      body: { id: "beta", name: "Beta", balance: "7.5" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: "beta",
      name: "Beta",
      balance: 7.5,
      currency: "RUB",
      billing: "prepaid",
      token: null,
    });
    expect((await api.call("GET", "/admin/v1/accounts/beta")).body.balance).toBe(7.5);
  });

  it("refuses an unknown field, a missing id and an account that exists, naming what is wrong", async () => {
    const unknown = await api.call("POST", "/admin/v1/accounts", { body: { id: "beta", colour: "red" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain("unknown field colour");
    const missing = await api.call("POST", "/admin/v1/accounts", { body: { name: "x" } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/^Invalid body: id: /);
    const exists = await api.call("POST", "/admin/v1/accounts", { body: { id: "acme" } });
    expect(exists.status).toBe(409);
    expect(exists.body.error.code).toBe("account_exists");
  });

  it("is an operator's: an account's token is refused with 403", async () => {
    const refused = await api.call("POST", "/admin/v1/accounts", { as: api.acmeToken, body: { id: "beta" } });
    expect(refused.status).toBe(403);
    expect((await api.call("GET", "/admin/v1/accounts/beta")).status).toBe(404);
  });
});

describe("GET /admin/v1/accounts/{accountId}", () => {
  it("shows the account to an operator and to its own token, not to another account's", async () => {
    expect((await api.call("GET", "/admin/v1/accounts/acme", { as: api.acmeToken })).body).toMatchObject({
      id: "acme",
    });
    const other = await api.call("GET", "/admin/v1/accounts/other", { as: api.acmeToken });
    expect(other.status).toBe(403);
    expect(other.body.error.message).toBe(
      "This token belongs to account acme and cannot access account other.",
    );
  });

  it("answers 404 account_not_found for an account that does not exist", async () => {
    const ghost = await api.call("GET", "/admin/v1/accounts/ghost");
    expect(ghost.status).toBe(404);
    expect(ghost.body.error.code).toBe("account_not_found");
  });
});

describe("POST /admin/v1/accounts/{accountId}/topups", () => {
  it("adds to the balance, answering the account, and reports the new balance", async () => {
    const topped = await api.call("POST", "/admin/v1/accounts/acme/topups", { body: { amount: 2.25 } });
    expect(topped.status).toBe(200);
    expect(topped.body.balance).toBe(102.25);
    expect(api.balances).toEqual([["acme", 102_250_000]]);
  });

  it("refuses a missing or non-positive amount naming amount, an account's own token, and reports nothing", async () => {
    const missing = await api.call("POST", "/admin/v1/accounts/acme/topups", { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain("amount");
    const negative = await api.call("POST", "/admin/v1/accounts/acme/topups", { body: { amount: -1 } });
    expect(negative.status).toBe(400);
    expect(negative.body.error.message).toContain("amount");
    const own = await api.call("POST", "/admin/v1/accounts/acme/topups", {
      as: api.acmeToken,
      body: { amount: 1 },
    });
    expect(own.status).toBe(403);
    expect(api.balances).toEqual([]);
    expect((await api.call("GET", "/admin/v1/accounts/acme")).body.balance).toBe(100);
  });
});

describe("PUT /admin/v1/accounts/{accountId}/budgets", () => {
  it("sets the account's mode, windows and thresholds, answering the account", async () => {
    const set = await api.call("PUT", "/admin/v1/accounts/acme/budgets", {
      body: { billing: "budgeted", budgets: [{ period: "month", amount: 300 }], alert_at: [50] },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      billing: "budgeted",
      alert_at: [50],
      budgets: [
        { period: "month", amount: 300, spent: 0, remaining: 300, resets_at: "2026-12-01T00:00:00.000Z" },
      ],
    });
  });

  it("refuses a mode the body schema does not know and windows that do not fit the mode, naming them", async () => {
    const mode = await api.call("PUT", "/admin/v1/accounts/acme/budgets", { body: { billing: "postpaid" } });
    expect(mode.status).toBe(400);
    expect(mode.body.error.message).toMatch(/^Invalid body: billing: /);
    const empty = await api.call("PUT", "/admin/v1/accounts/acme/budgets", {
      body: { billing: "budgeted", budgets: [] },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe(
      "a budgeted account needs at least one budget (such as 300000/month)",
    );
  });

  it("is an operator's: the account's own token is refused with 403", async () => {
    const own = await api.call("PUT", "/admin/v1/accounts/acme/budgets", {
      as: api.acmeToken,
      body: { budgets: ["1/day"] },
    });
    expect(own.status).toBe(403);
    expect((await api.call("GET", "/admin/v1/accounts/acme")).body.billing).toBe("prepaid");
  });
});

describe("the audit logs", () => {
  it("lists an account's entries newest first, as many as asked, to the account itself", async () => {
    await api.call("POST", "/admin/v1/accounts/acme/topups", { body: { amount: 1 } });
    const log = await api.call("GET", "/admin/v1/accounts/acme/audit?limit=1", { as: api.acmeToken });
    expect(log.status).toBe(200);
    expect(log.body.entries).toEqual([
      expect.objectContaining({ action: "account.topup", actor: "admin", account_id: "acme" }),
    ]);
  });

  it("refuses a limit that is no whole number from 1 on, naming limit", async () => {
    const bad = await api.call("GET", "/admin/v1/accounts/acme/audit?limit=0");
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe("Invalid query: limit: must be a whole number from 1 on.");
  });

  it("lists every account's entries to an operator, or one account's with ?account", async () => {
    await api.call("POST", "/admin/v1/accounts/other/topups", { body: { amount: 1 } });
    const all = await api.call("GET", "/admin/v1/audit");
    expect(new Set(all.body.entries.map((entry: { account_id: string }) => entry.account_id))).toEqual(
      new Set(["acme", "other"]),
    );
    const one = await api.call("GET", "/admin/v1/audit?account=other&limit=5");
    expect(one.body.entries.every((entry: { account_id: string }) => entry.account_id === "other")).toBe(
      true,
    );
    expect(one.body.entries[0].action).toBe("account.topup");
    expect((await api.call("GET", "/admin/v1/audit", { as: api.acmeToken })).status).toBe(403);
  });
});
