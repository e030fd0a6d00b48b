// Key management, shared by the CLI and the admin API: its rules, and that a refusal writes nothing.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/auth/api-key.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

describe("keys", () => {
  beforeEach(async () => {
    await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  });

  it("are stored by hash only, findable by hash and by id", async () => {
    const { record, value } = await store.keyService.create({ accountId: "acme", name: "prod" }, ACTOR);
    const stored = JSON.stringify(
      await Promise.all(
        (await store.allKeys()).map(async (k) => [k, await store.redis.type(k), await store.redis.dump(k)]),
      ),
    );
    expect(stored).not.toContain(value.slice(10));
    expect(await store.keys.lookup(hashApiKey(value))).toEqual({ accountId: "acme", keyId: record.id });
    expect((await store.keyService.show(record.id)).name).toBe("prod");
    expect(record.hint).toBe(value.slice(-4));
  });

  it("are created only while the balance is positive, and a refusal writes nothing", async () => {
    await store.accountService.create({ id: "broke", balance: "0" }, ACTOR);
    const before = await store.allKeys();
    await expect(store.keyService.create({ accountId: "broke", name: "k" }, ACTOR)).rejects.toMatchObject({
      code: "insufficient_balance",
      message: expect.stringMatching(/balance is not positive/),
    });
    expect(await store.allKeys()).toEqual(before);
  });

  it("refuse bad options with a message naming the option, and write nothing", async () => {
    const before = await store.allKeys();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ttl: "5m" }, /at least 15 minutes/],
      [{ ttl: 15 }, /ttl must be a duration/],
      [{ budget: "-1" }, /budget must be a positive amount/],
      [{ budget: "0" }, /budget must be a positive amount/],
      [{ budget: "10", period: "year" }, /period must be day, week or month/],
      [{ period: "day" }, /period is only meaningful with a budget/],
      [{ models: [] }, /at least one model/],
      [{ models: "llama" }, /models must be a list/],
      [{ models: [""] }, /models must hold names/],
      [{ logBodies: "no" }, /log_bodies must be true or false/],
      [{ name: "" }, /name must be 1 to 200 characters/],
      [{ accountId: "ghost" }, /no account with id ghost/],
    ];
    for (const [input, message] of cases) {
      await expect(
        store.keyService.create({ accountId: "acme", name: "k", ...input }, ACTOR),
      ).rejects.toThrow(message);
    }
    expect(await store.allKeys()).toEqual(before);
  });

  it("take a budget per period, a lifetime, a model list and the privacy switch", async () => {
    const { record } = await store.keyService.create(
      {
        accountId: "acme",
        name: "k",
        budget: 12.5,
        period: "week",
        ttl: "2h",
        models: ["a", " b ", "a"],
        logBodies: false,
      },
      ACTOR,
    );
    expect(record).toMatchObject({
      budget: 12_500_000,
      period: "week",
      expiresAt: store.clock.now() + 2 * 3600_000,
      allowedModels: ["a", "b"],
      logBodies: false,
    });
    expect(await store.keyService.show(record.id)).toEqual(record);
  });

  it("are listed per account and revoked once", async () => {
    const first = await store.keyService.create({ accountId: "acme", name: "one" }, ACTOR);
    store.clock.advance(1); // listed by creation time
    await store.keyService.create({ accountId: "acme", name: "two" }, ACTOR);
    expect((await store.keyService.list("acme")).map((k) => k.name)).toEqual(["one", "two"]);
    const revoked = await store.keyService.revoke(first.record.id, ACTOR);
    expect(revoked).toMatchObject({ alreadyRevoked: false, record: { revokedAt: store.clock.now() } });
    store.clock.advance(1000);
    const again = await store.keyService.revoke(first.record.id, ACTOR);
    expect(again).toMatchObject({ alreadyRevoked: true, record: { revokedAt: store.clock.now() - 1000 } });
    await expect(store.keyService.revoke("key_00000000000000000000", ACTOR)).rejects.toMatchObject({
      code: "key_not_found",
    });
    await expect(store.keyService.show("nope")).rejects.toMatchObject({ code: "invalid_request" });
  });
});
