// What the routes share (admin/route.ts): the limit query read with its default, and the key in a path,
// which must be the path's account's — a key of another account is as unknown as one that does not exist.
// On the suite's Redis with the real key service.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AdminServices, type Call, DEFAULT_LIMIT, keyOf, limitOf } from "../../src/admin/route.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

describe("limitOf", () => {
  it("reads the limit query as a number, the default when it is not given", () => {
    expect(limitOf({})).toBe(DEFAULT_LIMIT);
    expect(DEFAULT_LIMIT).toBe(100);
    expect(limitOf({ limit: undefined })).toBe(100);
    expect(limitOf({ limit: "7" })).toBe(7);
  });
});

describe("keyOf", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openStore();
    await store.accountService.create({ id: "acme", balance: "1" }, ACTOR);
    await store.accountService.create({ id: "other", balance: "1" }, ACTOR);
  });
  afterEach(() => store.close());

  const call = (accountId: string, keyId: string) =>
    ({
      params: { accountId, keyId },
      services: { keys: store.keyService } as AdminServices,
    }) as unknown as Call;

  it("answers the path's key when it is the path's account's", async () => {
    const { record } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    expect(await keyOf(call("acme", record.id))).toMatchObject({ id: record.id, accountId: "acme" });
  });

  it("refuses another account's key with key_not_found, naming the account and the key", async () => {
    const { record } = await store.keyService.create({ accountId: "other", name: "k" }, ACTOR);
    await expect(keyOf(call("acme", record.id))).rejects.toMatchObject({
      code: "key_not_found",
      message: `account acme has no key ${record.id}`,
    });
  });

  it("refuses a key that does not exist with key_not_found, and a malformed id as invalid", async () => {
    await expect(keyOf(call("acme", "key_aaaaaaaaaaaaaaaaaaaa"))).rejects.toMatchObject({
      code: "key_not_found",
    });
    await expect(keyOf(call("acme", "not a key"))).rejects.toMatchObject({ code: "invalid_request" });
  });
});
