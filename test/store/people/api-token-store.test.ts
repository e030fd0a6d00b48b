// People's API tokens on the suite's Redis: a record under its owner's tag, found by the SHA-256 of its value
// only while the record still carries that hash, listed per person, touched, and deleted lookup first; creation
// and deletion in the owner's audit log, and a token of one account in that account's too.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEntry, userAuditEntry } from "../../../src/store/audit/audit-store.js";
import type { ApiTokenRecord } from "../../../src/store/people/api-token-store.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

const USER = "usr_0123456789abcdefghij";
const token = (id: string, createdAt: number, accountId: string | null = null): ApiTokenRecord => ({
  id,
  userId: USER,
  name: `token ${id}`,
  role: accountId === null ? "operator-viewer" : "member",
  accountId,
  hash: `sha256-of-${id}`,
  hint: id.slice(-4),
  createdAt,
  expiresAt: createdAt + 86_400_000,
  lastUsedAt: null,
});
const userAudit = (action: "token.create" | "token.revoke") =>
  userAuditEntry(ACTOR, store.clock.now(), action, USER, {});
const accountAudit = (action: "token.create" | "token.revoke") =>
  auditEntry(ACTOR, store.clock.now(), action, "acme", {});

describe("API tokens", () => {
  it("are found by id and by the hash of their value, and listed per person oldest first", async () => {
    const tokens = store.stores.apiTokens;
    await tokens.create(token("tok_b", 2_000), userAudit("token.create"), null);
    await tokens.create(
      token("tok_a", 1_000, "acme"),
      userAudit("token.create"),
      accountAudit("token.create"),
    );
    expect(await tokens.get(USER, "tok_a")).toEqual(token("tok_a", 1_000, "acme"));
    expect(await tokens.byHash("sha256-of-tok_b")).toEqual(token("tok_b", 2_000));
    expect(await tokens.byHash("sha256-of-nothing")).toBeNull();
    expect((await tokens.list(USER)).map((t) => t.id)).toEqual(["tok_a", "tok_b"]);
    expect(await tokens.list("usr_someone_else_000000")).toEqual([]);
  });

  it("refuse a token id that is taken", async () => {
    await store.stores.apiTokens.create(token("tok_a", 1_000), userAudit("token.create"), null);
    await expect(
      store.stores.apiTokens.create(token("tok_a", 2_000), userAudit("token.create"), null),
    ).rejects.toThrow("API token id tok_a is taken");
  });

  it("are not found by a lookup whose record carries another hash", async () => {
    await store.stores.apiTokens.create(token("tok_a", 1_000), userAudit("token.create"), null);
    await store.redis.hset(store.redisKeys.apiToken(USER, "tok_a"), "hash", "sha256-of-a-new-value");
    expect(await store.stores.apiTokens.byHash("sha256-of-tok_a")).toBeNull();
  });

  it("record their last use", async () => {
    await store.stores.apiTokens.create(token("tok_a", 1_000), userAudit("token.create"), null);
    await store.stores.apiTokens.touch(token("tok_a", 1_000), 5_000);
    expect((await store.stores.apiTokens.get(USER, "tok_a"))?.lastUsedAt).toBe(5_000);
  });

  it("are deleted, lookup and all, and a token that is gone is refused with token_not_found", async () => {
    const tokens = store.stores.apiTokens;
    const made = token("tok_a", 1_000, "acme");
    await tokens.create(made, userAudit("token.create"), accountAudit("token.create"));
    await tokens.delete(made, userAudit("token.revoke"), accountAudit("token.revoke"));
    expect(await tokens.get(USER, "tok_a")).toBeNull();
    expect(await tokens.byHash(made.hash)).toBeNull();
    expect(await tokens.list(USER)).toEqual([]);
    await expect(tokens.delete(made, userAudit("token.revoke"), null)).rejects.toMatchObject({
      code: "token_not_found",
    });
  });

  it("are recorded in the owner's audit log, and an account's token in the account's too", async () => {
    const tokens = store.stores.apiTokens;
    const made = token("tok_a", 1_000, "acme");
    await tokens.create(made, userAudit("token.create"), accountAudit("token.create"));
    await tokens.delete(made, userAudit("token.revoke"), accountAudit("token.revoke"));
    await tokens.create(token("tok_b", 2_000), userAudit("token.create"), null);
    expect((await store.stores.audit.listUser(USER, 10)).map((e) => e.action).sort()).toEqual([
      "token.create",
      "token.create",
      "token.revoke",
    ]);
    expect((await store.stores.audit.list("acme", 10)).map((e) => e.action).sort()).toEqual([
      "token.create",
      "token.revoke",
    ]);
  });
});
