// Changing how accounts and keys share a full model server, through the service the CLI and the admin API
// use, on the suite's Redis: what is stored, what the request path reads back, what the audit log records, and
// what is refused.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SharingService } from "../../src/services/sharing.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let sharing: SharingService;
let keyId: string;

beforeEach(async () => {
  store = await openStore();
  sharing = new SharingService(store.stores);
  await store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
  keyId = (await store.keyService.create({ accountId: "acme", name: "batch" }, ACTOR)).record.id;
});
afterEach(() => store.close());

describe("SharingService", () => {
  it("sets an account's weight, priority and longest wait, and puts each back to its default with null", async () => {
    const account = await sharing.setAccount("acme", { weight: "3", priority: -2, maxWaitMs: "5000" }, ACTOR);
    expect(account).toMatchObject({ weight: 3, priority: -2, maxWaitMs: 5000 });
    expect(await store.stores.sharing.read({ accountId: "acme", keyId })).toEqual({
      weight: 3,
      accountPriority: -2,
      accountMaxWaitMs: 5000,
      keyPriority: null,
      keyMaxWaitMs: null,
    });
    const back = await sharing.setAccount("acme", { weight: null, priority: "none", maxWaitMs: null }, ACTOR);
    expect(back).toMatchObject({ weight: 1 });
    expect(back).not.toHaveProperty("priority");
    expect(back).not.toHaveProperty("maxWaitMs");
    const [entry] = await store.stores.audit.list("acme", 1);
    expect(entry).toMatchObject({
      action: "account.sharing.update",
      account_id: "acme",
      details: { weight: 1, priority: null, max_wait_ms: null },
    });
  });

  it("sets a key's own priority and wait, never more urgent than its account's", async () => {
    await sharing.setAccount("acme", { priority: 2 }, ACTOR);
    await expect(sharing.setKey(keyId, { priority: 1 }, ACTOR)).rejects.toThrow(
      `priority of key ${keyId} must be from 2, its account's priority, to 1000: a key may be made less urgent than its account, never more (lower values are served first); got 1`,
    );
    const key = await sharing.setKey(keyId, { priority: 10, maxWaitMs: 750 }, ACTOR);
    expect(key.sharing).toEqual({ priority: 10, maxWaitMs: 750 });
    const [entry] = await store.stores.audit.list("acme", 1);
    expect(entry).toMatchObject({
      action: "key.sharing.update",
      key_id: keyId,
      details: { priority: 10, max_wait_ms: 750 },
    });
    expect((await sharing.setKey(keyId, { priority: null }, ACTOR)).sharing).toEqual({
      priority: null,
      maxWaitMs: 750,
    });
  });

  it("refuses nothing to change, bad values and unknown accounts or keys, changing nothing", async () => {
    await expect(sharing.setAccount("acme", {}, ACTOR)).rejects.toThrow(
      "nothing to change: give a weight, a priority or a max_wait_ms",
    );
    await expect(sharing.setAccount("acme", { weight: 0 }, ACTOR)).rejects.toThrow(
      /^weight must be a whole number/,
    );
    await expect(sharing.setAccount("nobody", { weight: 2 }, ACTOR)).rejects.toMatchObject({
      code: "account_not_found",
    });
    await expect(sharing.setKey("key_0000000000000000nope", { priority: 1 }, ACTOR)).rejects.toMatchObject({
      code: "key_not_found",
    });
    await store.keyService.revoke(keyId, ACTOR);
    await expect(sharing.setKey(keyId, { maxWaitMs: 10 }, ACTOR)).rejects.toThrow(
      `key ${keyId} is revoked and cannot be changed`,
    );
    expect((await store.accounts.require("acme")).weight).toBeUndefined();
  });
});
