// Values taken once, on the suite's Redis: found by a hash, read without taking, taken by exactly one of two
// racing requests, and cleared by their TTL.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

describe("one-time values", () => {
  it("are read by peek, left in place, and taken once", async () => {
    const links = store.stores.links;
    await links.put("h1", "invitation:acme", 60_000);
    expect(await links.peek("h1")).toBe("invitation:acme");
    expect(await links.peek("h1")).toBe("invitation:acme");
    expect(await links.take("h1")).toBe("invitation:acme");
    expect(await links.take("h1")).toBeNull();
    expect(await links.peek("h1")).toBeNull();
  });

  it("go to exactly one of two requests racing for them", async () => {
    await store.stores.links.put("h2", "v", 60_000);
    const taken = await Promise.all([store.stores.links.take("h2"), store.stores.links.take("h2")]);
    expect(taken.sort()).toEqual([null, "v"].sort());
  });

  it("are kept under their own key with the TTL given (at least 1 ms), and deleted on demand", async () => {
    await store.stores.oidcStates.put("h3", "state", 10_000.2);
    const key = store.redisKeys.oidcState("h3");
    const ttl = await store.redis.pttl(key);
    expect(ttl).toBeGreaterThan(9_000);
    expect(ttl).toBeLessThanOrEqual(10_001);
    await store.stores.oidcStates.put("h4", "state", 0);
    expect(await store.redis.pttl(store.redisKeys.oidcState("h4"))).toBeLessThanOrEqual(1);
    await store.stores.oidcStates.delete("h3");
    expect(await store.redis.exists(key)).toBe(0);
  });

  it("of one kind are not found as another", async () => {
    await store.stores.links.put("same", "link", 60_000);
    expect(await store.stores.oidcStates.peek("same")).toBeNull();
  });
});
