// How an account and a key share the model server, on the suite's Redis: their settings written by their
// scripts (set and removed, each change in the audit log), read together in one round trip, and refused for an
// account or key that does not exist or a key that is revoked.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KeyRef } from "../../../src/core/key-ref.js";
import { auditEntry } from "../../../src/store/audit/audit-store.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
let ref: KeyRef;
beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  const { record } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
  ref = { accountId: "acme", keyId: record.id };
});
afterEach(() => store.close());

const audit = (action: "account.sharing.update" | "key.sharing.update") =>
  auditEntry(ACTOR, store.clock.now(), action, "acme", {});

describe("sharing settings", () => {
  it("are all unset for a new account and key", async () => {
    expect(await store.stores.sharing.read(ref)).toEqual({
      weight: null,
      accountPriority: null,
      accountMaxWaitMs: null,
      keyPriority: null,
      keyMaxWaitMs: null,
    });
  });

  it("are read as the account's and the key's scripts wrote them, and removed with \"\"", async () => {
    const sharing = store.stores.sharing;
    await sharing.setAccount(
      "acme",
      { weight: "3", priority: "2", max_wait_ms: "1500" },
      audit("account.sharing.update"),
    );
    await sharing.setKey(ref, { priority: "0", max_wait_ms: "250" }, audit("key.sharing.update"));
    expect(await sharing.read(ref)).toEqual({
      weight: 3,
      accountPriority: 2,
      accountMaxWaitMs: 1500,
      keyPriority: 0,
      keyMaxWaitMs: 250,
    });
    await sharing.setAccount("acme", { priority: "" }, audit("account.sharing.update"));
    await sharing.setKey(ref, { max_wait_ms: "" }, audit("key.sharing.update"));
    expect(await sharing.read(ref)).toMatchObject({
      weight: 3,
      accountPriority: null,
      keyMaxWaitMs: null,
      keyPriority: 0,
    });
    const actions = (await store.stores.audit.list("acme", 20)).map((entry) => entry.action);
    expect(actions.filter((action) => action.endsWith("sharing.update"))).toHaveLength(4);
  });

  it("refuse an account or a key that does not exist, and a revoked key", async () => {
    const sharing = store.stores.sharing;
    await expect(
      sharing.setAccount("ghost", { weight: "2" }, audit("account.sharing.update")),
    ).rejects.toMatchObject({
      code: "account_not_found",
    });
    await expect(
      sharing.setKey(
        { accountId: "acme", keyId: "key_00000000000000000000" },
        { priority: "1" },
        audit("key.sharing.update"),
      ),
    ).rejects.toMatchObject({ code: "key_not_found" });
    await store.keyService.revoke(ref.keyId, ACTOR);
    await expect(sharing.setKey(ref, { priority: "1" }, audit("key.sharing.update"))).rejects.toMatchObject({
      code: "invalid_request",
      message: `key ${ref.keyId} is revoked and cannot be changed`,
    });
  });
});
