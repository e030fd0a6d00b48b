// Account management, shared by the CLI and the admin API: its rules, that a refusal writes nothing, and
// that every change is audited under its actor. On the suite's Redis.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ACCOUNT_TOKEN_PREFIX, hashApiKey } from "../../src/auth/api-key.js";
import { amountText, MAX_AUDIT_READ } from "../../src/services/accounts.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

describe("accounts", () => {
  it("are created with an opening balance and topped up by positive amounts only", async () => {
    await store.accountService.create({ id: "acme", name: "Acme Corp", balance: "10.5" }, ACTOR);
    expect(await store.accountService.topUp("acme", "0.000001", ACTOR)).toMatchObject({
      balance: 10_500_001,
    });
    for (const bad of ["0", "-1", "abc", "1e3", 0, -5, null, {}]) {
      await expect(store.accountService.topUp("acme", bad, ACTOR)).rejects.toMatchObject({
        code: "invalid_request",
      });
    }
    expect((await store.accountService.show("acme")).balance).toBe(10_500_001);
  });

  it("cannot be created twice, and a second attempt leaves the balance alone", async () => {
    await store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
    await expect(store.accountService.create({ id: "acme", balance: "999" }, ACTOR)).rejects.toMatchObject({
      code: "account_exists",
    });
    expect((await store.accountService.show("acme")).balance).toBe(10_000_000);
  });

  it("refuses malformed ids and names", async () => {
    for (const id of ["", "Acme", "a b", "{a}", "a:b", "-a", "x".repeat(65)]) {
      await expect(store.accountService.create({ id }, ACTOR)).rejects.toMatchObject({
        code: "invalid_request",
      });
    }
    await expect(store.accountService.create({ id: "ok", name: "bad\nname" }, ACTOR)).rejects.toThrow(
      /control characters/,
    );
    expect(await store.allKeys()).toEqual([]);
  });

  it("are listed", async () => {
    await store.accountService.create({ id: "b" }, ACTOR);
    await store.accountService.create({ id: "a" }, ACTOR);
    expect((await store.accountService.list()).map((a) => a.id).sort()).toEqual(["a", "b"]);
  });

  it("report a missing account as account_not_found", async () => {
    await expect(store.accountService.show("ghost")).rejects.toMatchObject({ code: "account_not_found" });
    await expect(store.accountService.topUp("ghost", "1", ACTOR)).rejects.toMatchObject({
      code: "account_not_found",
    });
  });
});

describe("dashboard tokens", () => {
  beforeEach(async () => {
    await store.accountService.create({ id: "acme" }, ACTOR);
  });

  it("are issued once, stored by hash with a hint, and audited by their hint only", async () => {
    const { account, token } = await store.accountService.createToken("acme", ACTOR);
    expect(token.startsWith(ACCOUNT_TOKEN_PREFIX)).toBe(true);
    expect(account.tokenHint).toBe(token.slice(-4));
    expect(account.tokenHash).toBe(hashApiKey(token));
    expect((await store.accounts.accountOfToken(hashApiKey(token)))?.id).toBe("acme");
    const [entry] = await store.accountService.audit("acme", 1);
    expect(entry).toMatchObject({
      action: "account.token.create",
      actor: "cli",
      details: { hint: token.slice(-4) },
    });
    expect(JSON.stringify(entry)).not.toContain(token);
  });

  it("are replaced by a new one, which the old one no longer opens", async () => {
    const first = await store.accountService.createToken("acme", ACTOR);
    const second = await store.accountService.createToken("acme", { kind: "admin" });
    expect(second.token).not.toBe(first.token);
    expect(await store.accounts.accountOfToken(hashApiKey(first.token))).toBeNull();
    expect((await store.accounts.accountOfToken(hashApiKey(second.token)))?.id).toBe("acme");
  });

  it("are revoked, and revoking none says so", async () => {
    const { token } = await store.accountService.createToken("acme", ACTOR);
    expect(await store.accountService.revokeToken("acme", ACTOR)).toBe(true);
    expect(await store.accounts.accountOfToken(hashApiKey(token))).toBeNull();
    expect(await store.accountService.revokeToken("acme", ACTOR)).toBe(false);
  });

  it("are refused for a missing account or a malformed id", async () => {
    await expect(store.accountService.createToken("ghost", ACTOR)).rejects.toMatchObject({
      code: "account_not_found",
    });
    await expect(store.accountService.createToken("Not An Id", ACTOR)).rejects.toMatchObject({
      code: "invalid_request",
    });
  });
});

describe("the audit log", () => {
  it("records each change with its actor, the amounts in rubles", async () => {
    await store.accountService.create({ id: "acme", name: "Acme", balance: "10.5" }, ACTOR);
    store.clock.advance(1000);
    await store.accountService.topUp("acme", 2.25, { kind: "account", accountId: "acme" });
    expect(await store.accountService.audit("acme", 10)).toEqual([
      {
        at: new Date(store.clock.now()).toISOString(),
        actor: "account:acme",
        action: "account.topup",
        account_id: "acme",
        details: { amount: "2.25" },
      },
      {
        at: new Date(store.clock.now() - 1000).toISOString(),
        actor: "cli",
        action: "account.create",
        account_id: "acme",
        details: { name: "Acme", balance: "10.5" },
      },
    ]);
  });

  it("reads at least one entry and at most MAX_AUDIT_READ, whatever limit is asked for", async () => {
    await store.accountService.create({ id: "acme" }, ACTOR);
    await store.accountService.topUp("acme", "1", ACTOR);
    // A store asked for 0 entries would read them all.
    expect(await store.accountService.audit("acme", 0)).toHaveLength(1);
    expect(await store.accountService.audit("acme", -5)).toHaveLength(1);
    expect(await store.accountService.audit("acme", MAX_AUDIT_READ * 10)).toHaveLength(2);
    expect(await store.accountService.auditAll(0)).toHaveLength(1);
  });

  it("is read for one existing account, or merged over every account", async () => {
    await expect(store.accountService.audit("ghost", 10)).rejects.toMatchObject({
      code: "account_not_found",
    });
    await store.accountService.create({ id: "a" }, ACTOR);
    store.clock.advance(1);
    await store.accountService.create({ id: "b" }, ACTOR);
    expect((await store.accountService.auditAll(10)).map((e) => e.account_id)).toEqual(["b", "a"]);
  });
});

describe("amountText", () => {
  it("passes CLI text and JSON numbers on, and refuses anything else naming the field", () => {
    expect(amountText("12.5", "amount")).toBe("12.5");
    expect(amountText(12.5, "amount")).toBe(12.5);
    for (const bad of [null, true, {}, [1], undefined]) {
      expect(() => amountText(bad, "balance")).toThrow(
        expect.objectContaining({
          code: "invalid_request",
          message: expect.stringMatching(/^balance must be an amount in rubles such as 1000 or 12\.5; got /),
        }),
      );
    }
  });
});
