// Changing a key's budget period while it is being charged, on the suite's Redis: the new period's spent
// amount is what the usage counters say was charged since it began, and a charge landing between the read and
// the write makes the change read again — up to PERIOD_CHANGE_ATTEMPTS times, then 503.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KeyRef } from "../../src/core/key-ref.js";
import { changeKeyPeriod, PERIOD_CHANGE_ATTEMPTS } from "../../src/services/key-period-change.js";
import type { Stores } from "../../src/store/stores.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let ref: KeyRef;
beforeEach(async () => {
  store = await openStore(); // 2026-11-21, a Saturday
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  const { record } = await store.keyService.create(
    { accountId: "acme", name: "k", budget: 50, period: "day" },
    ACTOR,
  );
  ref = { accountId: "acme", keyId: record.id };
  // Charged 2 ₽ on the 2nd of the month, 3 ₽ on the 20th and 1 ₽ today.
  for (const [day, cost] of [
    ["2026-11-02", 2_000_000],
    ["2026-11-20", 3_000_000],
    ["2026-11-21", 1_000_000],
  ] as const)
    await store.redis.hset(store.redisKeys.usage(ref.accountId, ref.keyId, day), "cost", cost);
});
afterEach(() => store.close());

/** The stores, with a key store whose every read of the spending is followed by a charge, `times` times. */
function chargedWhileChanging(times: number): { stores: Stores; reads: () => number } {
  let reads = 0;
  const keys = Object.create(store.stores.keys) as Stores["keys"];
  keys.periodSpending = async (...args) => {
    const spending = await store.stores.keys.periodSpending(...args);
    reads++;
    if (reads <= times) await store.redis.hincrby(store.redisKeys.key(ref.accountId, ref.keyId), "spent", 1);
    return spending;
  };
  return { stores: { ...store.stores, keys }, reads: () => reads };
}

describe("changing a key's period", () => {
  it("sets the new period's spent amount to what the key was charged since that period began", async () => {
    await changeKeyPeriod(store.stores, {
      ref,
      changes: {},
      audit: "{}",
      windows: undefined,
      period: "week",
    });
    const key = await store.keyService.show(ref.keyId);
    expect(key.period).toBe("week");
    expect(key.spent).toBe(4_000_000); // Monday the 16th onwards: the 20th and today
  });

  it("gives a new window what was charged in its period, and keeps a kept window's own spent amount", async () => {
    const windows = [
      { period: "month" as const, budget: 90_000_000 },
      { period: "day" as const, budget: 5_000_000 },
    ];
    await changeKeyPeriod(store.stores, { ref, changes: {}, audit: "{}", windows, period: undefined });
    const key = await store.keyService.show(ref.keyId);
    expect(key.budgets.map(({ period, budget, spent }) => ({ period, budget, spent }))).toEqual([
      { period: "month", budget: 90_000_000, spent: 6_000_000 },
      { period: "day", budget: 5_000_000, spent: 0 }, // the key's day window, whose spent the counters don't set
    ]);
  });

  it("reads again when the key was charged between the read and the write", async () => {
    const { stores, reads } = chargedWhileChanging(2);
    await changeKeyPeriod(stores, { ref, changes: {}, audit: "{}", windows: undefined, period: "month" });
    expect(reads()).toBe(3);
    const key = await store.keyService.show(ref.keyId);
    expect(key.period).toBe("month");
    expect(key.spent).toBe(6_000_000);
  });

  it(`gives up with 503 after ${PERIOD_CHANGE_ATTEMPTS} attempts, the key unchanged`, async () => {
    const { stores, reads } = chargedWhileChanging(Number.POSITIVE_INFINITY);
    await expect(
      changeKeyPeriod(stores, { ref, changes: {}, audit: "{}", windows: undefined, period: "month" }),
    ).rejects.toMatchObject({
      code: "service_unavailable",
      message: expect.stringMatching(`attempts to change its period`),
    });
    expect(reads()).toBe(PERIOD_CHANGE_ATTEMPTS);
    expect((await store.keyService.show(ref.keyId)).period).toBe("day");
  });
});
