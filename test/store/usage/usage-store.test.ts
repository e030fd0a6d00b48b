// Reading the daily usage counters the settle script writes: every key and day in one round trip, as
// integers, an empty set for a day without requests.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

describe("UsageStore.counters", () => {
  it("reads each key's counters on each day as integers, day by day and key by key", async () => {
    const { redisKeys } = store;
    await store.redis.hset(redisKeys.usage("acme", "key_a", "2026-11-20"), { lat_le_100: "2", cost: "1500" });
    await store.redis.hset(redisKeys.usage("acme", "key_b", "2026-11-21"), {
      lat_le_100: "1",
      cost: "999999999999",
      prompt_tokens: "12",
    });
    const counters = await store.stores.usage.counters(
      "acme",
      ["key_a", "key_b"],
      ["2026-11-20", "2026-11-21"],
    );
    expect(counters).toEqual([
      [{ lat_le_100: 2, cost: 1500 }, {}],
      [{}, { lat_le_100: 1, cost: 999_999_999_999, prompt_tokens: 12 }],
    ]);
  });

  it("reads one account's counters only", async () => {
    await store.redis.hset(store.redisKeys.usage("other", "key_a", "2026-11-20"), { cost: "1" });
    expect(await store.stores.usage.counters("acme", ["key_a"], ["2026-11-20"])).toEqual([[{}]]);
  });

  it("answers an empty list per day when there are no keys, and nothing for no days", async () => {
    expect(await store.stores.usage.counters("acme", [], ["2026-11-20", "2026-11-21"])).toEqual([[], []]);
    expect(await store.stores.usage.counters("acme", ["key_a"], [])).toEqual([]);
  });

  it("lets a Redis refusal of a read through rather than reading it as no usage", async () => {
    await store.redis.set(store.redisKeys.usage("acme", "key_a", "2026-11-20"), "not a hash");
    await expect(store.stores.usage.counters("acme", ["key_a"], ["2026-11-20"])).rejects.toThrow(/WRONGTYPE/);
  });
});
