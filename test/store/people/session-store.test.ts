// Signed-in people's sessions on the suite's Redis: kept under the hash of their id with a TTL, listed per
// person (dropping the index entries of sessions Redis has expired), touched, and revoked one by one or all.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionRecord } from "../../../src/store/people/session-store.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

const session = (hash: string, over: Partial<SessionRecord> = {}): SessionRecord => ({
  hash,
  userId: "usr_ann",
  via: "password",
  provider: null,
  createdAt: 1_000,
  lastSeenAt: 1_000,
  userAgent: "Firefox",
  address: "10.0.0.1",
  ...over,
});

describe("sessions", () => {
  it("are read back as created, with the TTL given", async () => {
    const sessions = store.stores.sessions;
    const oidc = session("h1", { via: "oidc", provider: "corp" });
    await sessions.create(oidc, 60_000);
    expect(await sessions.get("h1")).toEqual(oidc);
    const ttl = await store.redis.pttl(store.redisKeys.session("h1"));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await sessions.get("nope")).toBeNull();
  });

  it("slide their last use when touched", async () => {
    await store.stores.sessions.create(session("h1"), 60_000);
    await store.stores.sessions.touch("h1", 5_000);
    expect((await store.stores.sessions.get("h1"))?.lastSeenAt).toBe(5_000);
  });

  it("are listed per person oldest first, forgetting those Redis has expired", async () => {
    const sessions = store.stores.sessions;
    await sessions.create(session("late", { createdAt: 3_000 }), 60_000);
    await sessions.create(session("early", { createdAt: 2_000 }), 60_000);
    await sessions.create(session("gone", { createdAt: 2_500 }), 60_000);
    await sessions.create(session("bob", { userId: "usr_bob" }), 60_000);
    await store.redis.del(store.redisKeys.session("gone")); // as its TTL would
    expect((await sessions.list("usr_ann")).map((s) => s.hash)).toEqual(["early", "late"]);
    expect(await store.redis.zrange(store.redisKeys.userSessions("usr_ann"), "0", "-1")).toEqual([
      "early",
      "late",
    ]);
  });

  it("are revoked one by one, saying whether there was one", async () => {
    await store.stores.sessions.create(session("h1"), 60_000);
    expect(await store.stores.sessions.delete("usr_ann", "h1")).toBe(true);
    expect(await store.stores.sessions.delete("usr_ann", "h1")).toBe(false);
    expect(await store.stores.sessions.list("usr_ann")).toEqual([]);
  });

  it("are revoked all at once, counting those still alive, others' kept", async () => {
    const sessions = store.stores.sessions;
    for (const hash of ["a", "b", "c"]) await sessions.create(session(hash), 60_000);
    await sessions.create(session("bob", { userId: "usr_bob" }), 60_000);
    await store.redis.del(store.redisKeys.session("c"));
    expect(await sessions.deleteAll("usr_ann")).toBe(2);
    expect(await sessions.list("usr_ann")).toEqual([]);
    expect(await store.redis.exists(store.redisKeys.userSessions("usr_ann"))).toBe(0);
    expect((await sessions.list("usr_bob")).map((s) => s.hash)).toEqual(["bob"]);
  });
});
