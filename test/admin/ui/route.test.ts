// The dashboard's hash routes and the keys table's order.

import { describe, expect, it } from "vitest";
import type { Key } from "../../../src/admin/ui/api/types.js";
import { href, parseRoute, type Route } from "../../../src/admin/ui/route.js";
import { newestFirst, sortKeys } from "../../../src/admin/ui/views/account/sort-keys.js";

describe("routes", () => {
  it("read the hash", () => {
    expect(parseRoute("")).toEqual({ name: "home" });
    expect(parseRoute("#/")).toEqual({ name: "home" });
    expect(parseRoute("#/accounts")).toEqual({ name: "operator" });
    expect(parseRoute("#/accounts/acme")).toEqual({ name: "account", accountId: "acme" });
    expect(parseRoute("#/accounts/acme/new-key")).toEqual({ name: "newKey", accountId: "acme" });
    expect(parseRoute("#/accounts/acme/keys/key_abc")).toEqual({
      name: "key",
      accountId: "acme",
      keyId: "key_abc",
    });
    for (const bad of ["#/nope", "#/accounts/acme/keys", "#/accounts/%E0%A4%A", "#/accounts/acme/x/y/z"]) {
      expect(parseRoute(bad), bad).toEqual({ name: "notFound" });
    }
  });

  it("are written back to the same route, ids encoded", () => {
    const routes: Route[] = [
      { name: "operator" },
      { name: "account", accountId: "a_b-1" },
      { name: "newKey", accountId: "acme" },
      { name: "key", accountId: "acme", keyId: "key_0123456789abcdefghij" },
    ];
    for (const route of routes) expect(parseRoute(href(route))).toEqual(route);
    expect(href({ name: "account", accountId: "a/b" })).toBe("#/accounts/a%2Fb");
  });
});

function key(id: string, fields: Partial<Key>): Key {
  return {
    id,
    name: id,
    account_id: "acme",
    hint: "abcd",
    created_at: "2026-11-01T00:00:00.000Z",
    expires_at: null,
    revoked_at: null,
    state: "active",
    grace_until: null,
    disabled_at: null,
    allowed_models: null,
    log_bodies: true,
    budget: null,
    budgets: [],
    period: "month",
    limits: { rpm: null, tpm: null, max_parallel: null },
    alert_at: null,
    currency: "RUB",
    sharing: { priority: null, max_wait_ms: null },
    ...fields,
  };
}

const budgets = (spent: number, amount: number) => [
  {
    period: "month" as const,
    amount,
    spent,
    remaining: amount - spent,
    resets_at: "2026-12-01T00:00:00.000Z",
  },
];

describe("the keys table", () => {
  const keys = [
    key("a", { name: "Zeta", created_at: "2026-11-01T00:00:00.000Z", budgets: budgets(5, 10) }),
    key("b", { name: "alpha", created_at: "2026-11-03T00:00:00.000Z", state: "revoked" }),
    key("c", {
      name: "Mid",
      created_at: "2026-11-02T00:00:00.000Z",
      budgets: budgets(1, 10),
      expires_at: "2027-01-01T00:00:00.000Z",
    }),
  ];
  const ids = (list: Key[]) => list.map((k) => k.id);

  it("is newest first until a column is chosen", () => {
    expect(ids(newestFirst(keys))).toEqual(["b", "c", "a"]);
  });

  it("sorts by name without regard to case, both ways", () => {
    expect(ids(sortKeys(keys, "name", true))).toEqual(["b", "c", "a"]);
    expect(ids(sortKeys(keys, "name", false))).toEqual(["a", "c", "b"]);
  });

  it("sorts by the share of the budget spent, keys without a budget or expiry last either way", () => {
    expect(ids(sortKeys(keys, "budget", true))).toEqual(["c", "a", "b"]);
    expect(ids(sortKeys(keys, "budget", false))).toEqual(["a", "c", "b"]);
    expect(ids(sortKeys(keys, "expires", false))).toEqual(["c", "b", "a"]);
  });

  it("sorts by expiry, soonest first or last, keys without an expiry last either way", () => {
    // Creation order differs from expiry order, so that a sort falling back to newest first would show.
    const expiring = [
      key("late", { created_at: "2026-11-05T00:00:00.000Z", expires_at: "2027-03-01T00:00:00.000Z" }),
      key("never-old", { created_at: "2026-11-01T00:00:00.000Z" }),
      key("soon", { created_at: "2026-11-02T00:00:00.000Z", expires_at: "2026-12-01T00:00:00.000Z" }),
      key("never-new", { created_at: "2026-11-06T00:00:00.000Z" }),
      key("middle", { created_at: "2026-11-03T00:00:00.000Z", expires_at: "2027-01-15T00:00:00.000Z" }),
    ];
    expect(ids(sortKeys(expiring, "expires", true))).toEqual([
      "soon",
      "middle",
      "late",
      "never-new",
      "never-old",
    ]);
    expect(ids(sortKeys(expiring, "expires", false))).toEqual([
      "late",
      "middle",
      "soon",
      "never-new",
      "never-old",
    ]);
  });

  it("sorts by state, active first", () => {
    expect(ids(sortKeys(keys, "state", true))).toEqual(["c", "a", "b"]);
  });
});

describe("the people's routes", () => {
  it("read the sign-in page's failure, the one-time links and the people's pages", () => {
    expect(parseRoute("#/sign-in?error=user_disabled&provider=corp")).toEqual({
      name: "signIn",
      error: "user_disabled",
      provider: "corp",
    });
    expect(parseRoute("#/sign-in")).toEqual({ name: "signIn" });
    expect(parseRoute("#/invite/abc-DEF_1")).toEqual({ name: "invite", token: "abc-DEF_1" });
    expect(parseRoute("#/invite")).toEqual({ name: "invite", token: null });
    expect(parseRoute("#/set-password/tok")).toEqual({ name: "setPassword", token: "tok" });
    expect(parseRoute("#/accounts/acme/members")).toEqual({ name: "members", accountId: "acme" });
    expect(parseRoute("#/me")).toEqual({ name: "myAccount" });
    expect(parseRoute("#/people")).toEqual({ name: "people" });
    expect(parseRoute("#/invite/a/b")).toEqual({ name: "notFound" });
  });

  it("are written back to the same route", () => {
    const routes: Route[] = [
      { name: "signIn", error: "sign_in_failed", provider: "corp" },
      { name: "signIn" },
      { name: "invite", token: "abc" },
      { name: "invite", token: null },
      { name: "setPassword", token: "tok" },
      { name: "members", accountId: "acme" },
      { name: "myAccount" },
      { name: "people" },
    ];
    for (const route of routes) expect(parseRoute(href(route))).toEqual(route);
  });
});
