// The audit log: entries shaped by auditEntry (who, when, what), read back newest first per account and
// merged across accounts. The entries are written by the real scripts, through the service layer.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditEntry, UserAuditEntry } from "../../../src/store/audit/audit-schema.js";
import { actorName, auditEntry, userAuditEntry } from "../../../src/store/audit/audit-store.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

describe("actorName", () => {
  it("names the operator, the CLI, and an account by its id", () => {
    expect(actorName({ kind: "admin" })).toBe("admin");
    expect(actorName({ kind: "cli" })).toBe("cli");
    expect(actorName({ kind: "account", accountId: "acme" })).toBe("account:acme");
  });
});

describe("auditEntry", () => {
  it("is one JSON object: the time in ISO-8601 UTC, the actor, the action, the account and the details", () => {
    const entry = JSON.parse(
      auditEntry(
        { kind: "account", accountId: "acme" },
        Date.parse("2026-11-21T10:00:00Z"),
        "account.topup",
        "acme",
        {
          amount: "12.5",
        },
      ),
    );
    expect(entry).toEqual({
      at: "2026-11-21T10:00:00.000Z",
      actor: "account:acme",
      action: "account.topup",
      account_id: "acme",
      details: { amount: "12.5" },
    });
  });

  it("records the person behind a change, and how they were signed in, as the entries' schemas describe it", () => {
    const person = {
      kind: "user" as const,
      userId: "usr_1",
      name: "Anna",
      via: "oidc" as const,
      provider: "corp",
    };
    const token = {
      kind: "token" as const,
      userId: "usr_1",
      name: "Anna",
      tokenId: "tok_1",
      tokenName: "ci",
    };
    const entries = [
      AuditEntry.parse(JSON.parse(auditEntry(person, 0, "key.revoke", "acme", {}, "key_a"))),
      UserAuditEntry.parse(JSON.parse(userAuditEntry(token, 0, "user.update", "usr_2", { name: "B" }))),
      AuditEntry.parse(JSON.parse(auditEntry({ kind: "cli" }, 0, "account.create", "acme", {}))),
    ];
    expect(entries.map((entry) => [entry.actor, entry.by])).toEqual([
      ["user:usr_1", { user_id: "usr_1", name: "Anna", via: "oidc", provider: "corp" }],
      ["token:tok_1", { user_id: "usr_1", name: "Anna", via: "token", token_id: "tok_1", token_name: "ci" }],
      ["cli", undefined],
    ]);
  });

  it("names the key only for a change to a key", () => {
    const withKey = JSON.parse(auditEntry({ kind: "cli" }, 0, "key.revoke", "acme", {}, "key_a"));
    expect(withKey.key_id).toBe("key_a");
    expect(JSON.parse(auditEntry({ kind: "cli" }, 0, "account.create", "acme", {}))).not.toHaveProperty(
      "key_id",
    );
  });
});

describe("AuditStore", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openStore();
  });
  afterEach(() => store.close());

  it("lists an account's entries newest first, at most `limit` of them", async () => {
    await store.accountService.create({ id: "acme", balance: "1" }, ACTOR);
    for (const amount of ["1", "2", "3"]) {
      store.clock.advance(1000);
      await store.accountService.topUp("acme", amount, ACTOR);
    }
    const entries = await store.stores.audit.list("acme", 10);
    expect(entries.map((e) => [e.action, e.details.amount ?? null])).toEqual([
      ["account.topup", "3"],
      ["account.topup", "2"],
      ["account.topup", "1"],
      ["account.create", null],
    ]);
    expect((await store.stores.audit.list("acme", 2)).map((e) => e.details.amount)).toEqual(["3", "2"]);
    expect(await store.stores.audit.list("nobody", 10)).toEqual([]);
  });

  it("merges several accounts' entries newest first, cut to `limit`", async () => {
    await store.accountService.create({ id: "acme" }, ACTOR);
    store.clock.advance(1000);
    await store.accountService.create({ id: "beta" }, ACTOR);
    store.clock.advance(1000);
    await store.accountService.topUp("acme", "5", ACTOR);
    store.clock.advance(1000);
    await store.accountService.topUp("beta", "7", ACTOR);

    const all = await store.stores.audit.listAll(["acme", "beta"], 10);
    expect(all.map((e) => `${e.account_id} ${e.action}`)).toEqual([
      "beta account.topup",
      "acme account.topup",
      "beta account.create",
      "acme account.create",
    ]);
    expect((await store.stores.audit.listAll(["acme", "beta"], 3)).map((e) => e.account_id)).toEqual([
      "beta",
      "acme",
      "beta",
    ]);
    expect(await store.stores.audit.listAll([], 10)).toEqual([]);
  });
});
