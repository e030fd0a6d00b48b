// The lease service's own decisions: leases only where sound (here, Redis 7: the feed starts), and a
// reclaim that tells the other replicas and this one, at most once per key per wait.

import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { LeaseService } from "../../src/billing/lease-service.js";
import { ACTOR } from "../helpers/actor.js";
import { captureLogs } from "../helpers/logs.js";
import { openStore, type TestStore } from "../helpers/store.js";
import { waitUntil } from "../helpers/wait.js";

let store: TestStore;
let service: LeaseService;
let subscriber: Redis;
const messages: string[] = [];

beforeEach(async () => {
  store = await openStore();
  messages.length = 0;
  subscriber = new Redis(inject("redisUrl"));
  subscriber.on("smessage", (_channel: string, message: string) => messages.push(message));
  await subscriber.ssubscribe(store.redisKeys.changes("acme"));
  service = new LeaseService({
    redis: store.redis,
    keys: store.redisKeys,
    billing: store.billing,
    calendar: store.calendar,
    now: store.clock.now,
    ttlMs: 60_000,
    logger: captureLogs().logger,
  });
  await service.start();
  await store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
});
afterEach(async () => {
  await service.stop(1000);
  subscriber.disconnect();
  store.close();
});

describe("the lease service", () => {
  it("admits on a lease once the account's changes are subscribed and the lease granted", async () => {
    const { record } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    const ref = { accountId: "acme", keyId: record.id };
    await waitUntil(() => {
      service.admit(ref, record.hash as string, { kind: "none" }, 1000);
      return service.book.admitted > 0;
    }, "an admission on the lease");
    expect((await store.billing.reserved("acme")).account).toBeGreaterThan(0);
  });

  it("publishes a reclaim for the key, or the account, at most once per wait", async () => {
    const ref = { accountId: "acme", keyId: "key-1" };
    expect(await service.reclaim(ref, false)).toBe(true);
    expect(await service.reclaim(ref, true)).toBe(true);
    await waitUntil(() => messages.length === 2, "two reclaims");
    expect(messages).toEqual(["reclaim key-1", "reclaim *"]);
  });
});
