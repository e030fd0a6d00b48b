// Accounts in Redis: creation once, top-ups capped at the largest exact amount, dashboard tokens whose old
// lookups stop working the moment they are replaced or revoked; every change audited. On the suite's Redis.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashApiKey } from "../../../src/auth/api-key.js";
import { MAX_MICROS } from "../../../src/core/money.js";
import { auditEntry } from "../../../src/store/audit/audit-store.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

const audit = (action: Parameters<typeof auditEntry>[2], accountId = "acme") =>
  auditEntry({ kind: "cli" }, store.clock.now(), action, accountId, {});

async function createAcme(balance = 10_000_000) {
  await store.accounts.create(
    { id: "acme", name: "Acme Corp", balance, createdAt: store.clock.now() },
    audit("account.create"),
  );
}

async function auditActions(accountId = "acme"): Promise<string[]> {
  const lines = await store.redis.lrange(store.redisKeys.audit(accountId), 0, -1);
  return lines.map((line) => JSON.parse(line).action);
}

describe("create", () => {
  it("stores the account with its opening balance, lists it, and audits the creation", async () => {
    await createAcme();
    expect(await store.accounts.get("acme")).toEqual({
      id: "acme",
      name: "Acme Corp",
      balance: 10_000_000,
      createdAt: store.clock.now(),
      billing: "prepaid",
      budgets: [],
      alertAt: null,
    });
    expect((await store.accounts.list()).map((a) => a.id)).toEqual(["acme"]);
    expect(await auditActions()).toEqual(["account.create"]);
  });

  it("refuses an existing id with account_exists, leaving the balance and the audit log as they were", async () => {
    await createAcme();
    await expect(
      store.accounts.create(
        { id: "acme", name: "Other", balance: 999, createdAt: store.clock.now() },
        audit("account.create"),
      ),
    ).rejects.toMatchObject({ code: "account_exists", message: "account acme already exists" });
    expect(await store.accounts.get("acme")).toMatchObject({ name: "Acme Corp", balance: 10_000_000 });
    expect(await auditActions()).toEqual(["account.create"]);
  });
});

describe("topUp", () => {
  it("adds to the balance and returns the new one", async () => {
    await createAcme();
    expect(await store.accounts.topUp("acme", 2_500_000, audit("account.topup"))).toBe(12_500_000);
    expect((await store.accounts.require("acme")).balance).toBe(12_500_000);
    expect(await auditActions()).toEqual(["account.topup", "account.create"]);
  });

  it("refuses a balance beyond the largest exact amount, naming it, and changes nothing", async () => {
    await createAcme(MAX_MICROS - 1);
    await expect(store.accounts.topUp("acme", 2, audit("account.topup"))).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/would exceed 999999999\.999999/),
    });
    expect((await store.accounts.require("acme")).balance).toBe(MAX_MICROS - 1);
    expect(await store.accounts.topUp("acme", 1, audit("account.topup"))).toBe(MAX_MICROS);
  });

  it("refuses an account that does not exist with account_not_found, creating nothing", async () => {
    await expect(store.accounts.topUp("ghost", 1, audit("account.topup", "ghost"))).rejects.toMatchObject({
      code: "account_not_found",
      message: "no account with id ghost",
    });
    expect(await store.allKeys()).toEqual([]);
  });
});

describe("reading accounts", () => {
  it("answers null for a missing account, and require refuses it with account_not_found", async () => {
    expect(await store.accounts.get("ghost")).toBeNull();
    await expect(store.accounts.require("ghost")).rejects.toMatchObject({ code: "account_not_found" });
  });

  it("lists accounts in order of creation, skipping an id whose record is missing", async () => {
    await createAcme();
    store.clock.advance(1000);
    await store.accounts.create(
      { id: "beta", name: "Beta", balance: 0, createdAt: store.clock.now() },
      audit("account.create", "beta"),
    );
    // What a crash between the listing and the record would leave behind.
    await store.redis.zadd(store.redisKeys.accounts(), store.clock.now() + 1, "half-made");
    expect((await store.accounts.list()).map((a) => a.id)).toEqual(["acme", "beta"]);
  });
});

describe("dashboard tokens", () => {
  it("are found by their hash, and a replaced token's lookup is gone", async () => {
    await createAcme();
    await store.accounts.setToken("acme", hashApiKey("first-token"), "oken", audit("account.token.create"));
    expect((await store.accounts.accountOfToken(hashApiKey("first-token")))?.id).toBe("acme");
    expect(await store.accounts.require("acme")).toMatchObject({ tokenHint: "oken" });

    await store.accounts.setToken("acme", hashApiKey("second-token"), "cond", audit("account.token.create"));
    expect(await store.accounts.accountOfToken(hashApiKey("first-token"))).toBeNull();
    expect(await store.redis.exists(store.redisKeys.accountToken(hashApiKey("first-token")))).toBe(0);
    expect((await store.accounts.accountOfToken(hashApiKey("second-token")))?.id).toBe("acme");
  });

  it("are revoked: the lookup goes, the record forgets the token, and a second revocation says there was none", async () => {
    await createAcme();
    await store.accounts.setToken("acme", hashApiKey("token"), "oken", audit("account.token.create"));
    expect(await store.accounts.revokeToken("acme", audit("account.token.revoke"))).toBe(true);
    expect(await store.accounts.accountOfToken(hashApiKey("token"))).toBeNull();
    const account = await store.accounts.require("acme");
    expect(account.tokenHash).toBeUndefined();
    expect(account.tokenHint).toBeUndefined();
    expect(await store.accounts.revokeToken("acme", audit("account.token.revoke"))).toBe(false);
    expect(await auditActions()).toEqual(["account.token.revoke", "account.token.create", "account.create"]);
  });

  it("never let a lookup the record no longer names in", async () => {
    await createAcme();
    await store.accounts.setToken("acme", hashApiKey("current"), "rent", audit("account.token.create"));
    // A lookup left behind (a crash between the script and the deletion of the old lookup).
    await store.redis.set(store.redisKeys.accountToken(hashApiKey("stale")), "acme");
    expect(await store.accounts.accountOfToken(hashApiKey("stale"))).toBeNull();
    expect(await store.accounts.accountOfToken(hashApiKey("unknown"))).toBeNull();
  });

  it("cannot be set or revoked on an account that does not exist", async () => {
    await expect(
      store.accounts.setToken("ghost", hashApiKey("t"), "t", audit("account.token.create", "ghost")),
    ).rejects.toMatchObject({ code: "account_not_found" });
    await expect(
      store.accounts.revokeToken("ghost", audit("account.token.revoke", "ghost")),
    ).rejects.toMatchObject({
      code: "account_not_found",
    });
    expect(await store.allKeys()).toEqual([]);
  });
});
