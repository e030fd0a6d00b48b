// SCIM tokens on the suite's Redis: a record found by its id or by the SHA-256 of its value (never the value
// itself), its last use kept apart, listed oldest first, and deleted with its lookup; creating and deleting each
// in the SCIM log, in one MULTI.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scimAuditEntry } from "../../../src/store/audit/audit-store.js";
import type { ScimTokenRecord } from "../../../src/store/people/scim-token-store.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

const token = (id: string, createdAt: number): ScimTokenRecord => ({
  id,
  name: `token ${id}`,
  hash: `sha256-of-${id}`,
  hint: id.slice(-4),
  createdAt,
  createdBy: "cli",
  lastUsedAt: null,
});
const audit = (action: "scim.token.create" | "scim.token.revoke") =>
  scimAuditEntry(ACTOR, store.clock.now(), action, {});

describe("SCIM tokens", () => {
  it("are found by id and by the hash of their value, and listed oldest first", async () => {
    const tokens = store.stores.scimTokens;
    await tokens.create(token("scim_b", 2_000), audit("scim.token.create"));
    await tokens.create(token("scim_a", 1_000), audit("scim.token.create"));
    expect(await tokens.get("scim_a")).toEqual(token("scim_a", 1_000));
    expect(await tokens.byHash("sha256-of-scim_b")).toEqual(token("scim_b", 2_000));
    expect(await tokens.byHash("sha256-of-nothing")).toBeNull();
    expect((await tokens.list()).map((t) => t.id)).toEqual(["scim_a", "scim_b"]);
  });

  it("keep their last use apart from the record", async () => {
    const tokens = store.stores.scimTokens;
    await tokens.create(token("scim_a", 1_000), audit("scim.token.create"));
    const record = await store.redis.hget(store.redisKeys.scim().tokens, "scim_a");
    await tokens.touch("scim_a", 5_000);
    expect((await tokens.get("scim_a"))?.lastUsedAt).toBe(5_000);
    expect((await tokens.list())[0]?.lastUsedAt).toBe(5_000);
    expect(await store.redis.hget(store.redisKeys.scim().tokens, "scim_a")).toBe(record);
  });

  it("are deleted with their lookup and last use, and skipped when unreadable", async () => {
    const tokens = store.stores.scimTokens;
    await tokens.create(token("scim_a", 1_000), audit("scim.token.create"));
    await tokens.touch("scim_a", 5_000);
    await tokens.delete(token("scim_a", 1_000), audit("scim.token.revoke"));
    expect(await tokens.get("scim_a")).toBeNull();
    expect(await tokens.byHash("sha256-of-scim_a")).toBeNull();
    expect(await store.redis.hget(store.redisKeys.scim().tokenUsed, "scim_a")).toBeNull();
    await store.redis.hset(store.redisKeys.scim().tokens, "scim_x", "{not json");
    expect(await tokens.list()).toEqual([]);
  });

  it("record their creation and deletion in the SCIM log", async () => {
    await store.stores.scimTokens.create(token("scim_a", 1), audit("scim.token.create"));
    await store.stores.scimTokens.delete(token("scim_a", 1), audit("scim.token.revoke"));
    expect((await store.stores.audit.listScim(10)).map((entry) => entry.action)).toEqual([
      "scim.token.revoke",
      "scim.token.create",
    ]);
  });
});
