// The lease book over the real lease and settle scripts (a real Redis, the tests' clock): what it admits
// locally and what it sends the per-request way, how its mirror of the lease follows the scripts' deltas,
// and how a lease it can no longer trust is given back.

import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LeaseAdmission } from "../../src/billing/lease-admission.js";
import { FACTS_MAX_AGE_MS, IDLE_MS, LeaseBook } from "../../src/billing/leases.js";
import type { KeyRef } from "../../src/core/key-ref.js";
import type { ModelCheck } from "../../src/core/model-check.js";
import { parseRubles } from "../../src/core/money.js";
import type { LeaseGrant } from "../../src/store/billing/lease-script.js";
import { ACTOR } from "../helpers/actor.js";
import { settlementAt } from "../helpers/billing-scripts.js";
import { openStore, type TestStore } from "../helpers/store.js";

const rub = (text: string) => parseRubles(text, "test amount");
const NONE: ModelCheck = { kind: "none" };

let store: TestStore;
let book: LeaseBook;
let failNext: Error | null;
let errors: unknown[];
let feedReady: boolean;
let calls: number;

beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  failNext = null;
  errors = [];
  feedReady = true;
  calls = 0;
  book = new LeaseBook(store.billing.replicaId, {
    lease: (ref, leaseId, amount, grow, expected): Promise<LeaseGrant> => {
      calls++;
      if (failNext) {
        const error = failNext;
        failNext = null;
        return Promise.reject(error);
      }
      const now = store.clock.now();
      return store.billing.lease(ref, {
        leaseId,
        amount,
        now,
        periods: store.calendar.at(now),
        expiresAt: now + 60_000,
        share: 2,
        grow,
        expected,
      });
    },
    feedReady: () => feedReady,
    now: store.clock.now,
    onError: (error) => errors.push(error),
  });
});
afterEach(() => store.close());

async function key(options: { budget?: string; models?: string[]; ttl?: string } = {}) {
  const { record } = await store.keyService.create({ accountId: "acme", name: "k", ...options }, ACTOR);
  return { ref: { accountId: "acme", keyId: record.id } satisfies KeyRef, hash: record.hash as string };
}

/** Admits once to start the lease, waits for its grant, and admits again. */
async function warm(ref: KeyRef, hash: string, worst: number, model: ModelCheck = NONE) {
  expect(book.admit(ref, hash, model, worst)).toBeNull();
  await book.idle(5000);
  return book.admit(ref, hash, model, worst);
}

async function settle(ref: KeyRef, admission: LeaseAdmission, cost: number) {
  const input = {
    ...settlementAt(store, randomUUID(), cost, { latencyMs: 1 }),
    leaseHold: admission,
  };
  const [result] = await store.billing.settleMany("acme", [{ ...input, ref }]);
  book.settled(admission, result ?? null);
  await book.idle(5000);
  return result;
}

describe("the lease book", () => {
  it("sends a key's first request the per-request way, then admits on the lease it took meanwhile", async () => {
    const { ref, hash } = await key({ budget: "10" });
    const admission = await warm(ref, hash, rub("0.1"));
    expect(admission).toMatchObject({ hold: rub("0.1"), keyName: "k", logBodies: true, allowedModels: null });
    // Sized for 8 of the largest requests seen, at most half of the budget.
    expect(book.stats()).toMatchObject({ leases: 1, leased: rub("0.8"), held: rub("0.1") });
    expect((await store.billing.reserved("acme")).account).toBe(rub("0.8"));
    expect(book.admitted).toBe(1);
  });

  it("keeps the lease's size through settlements far from the limit, and its mirror equal to Redis", async () => {
    const { ref, hash } = await key({ budget: "10" });
    const admission = (await warm(ref, hash, rub("0.1"))) as LeaseAdmission;
    const result = await settle(ref, admission, rub("0.02"));
    expect(result?.lease).toEqual({ delta: 0, live: true });
    expect(book.stats()).toMatchObject({ leased: rub("0.8"), held: 0 });
    expect((await store.billing.reserved("acme")).account).toBe(rub("0.8"));
    expect((await store.keys.get(ref))?.spent).toBe(rub("0.02"));
  });

  it("sends a request the lease does not cover the per-request way", async () => {
    const { ref, hash } = await key({ budget: "10" });
    await warm(ref, hash, rub("0.1"));
    expect(book.admit(ref, hash, NONE, rub("2"))).toBeNull();
  });

  it("never admits a request that holds nothing: a lease with nothing left sends it the per-request way", async () => {
    // A budget of 0.2 ₽: the lease gets half, 0.1 ₽, which the first request holds entirely.
    const { ref, hash } = await key({ budget: "0.2" });
    expect(await warm(ref, hash, rub("0.1"))).toMatchObject({ hold: rub("0.1") });
    expect(book.stats()).toMatchObject({ leased: rub("0.1"), held: rub("0.1") });
    // A request of a free model (worst case 0) fits in nothing, but the lease has nothing to vouch with:
    // reserve decides it (and refuses it once a window is used up or the balance is at 0).
    expect(book.admit(ref, hash, NONE, 0)).toBeNull();
    expect(book.admitted).toBe(1);
  });

  it("admits only what the key's facts allow: expiry, the value and its grace, the model list", async () => {
    const { ref, hash } = await key({ models: ["llama"], ttl: "1h" });
    const llama: ModelCheck = { kind: "named", model: "llama" };
    expect(await warm(ref, hash, rub("0.1"), llama)).toMatchObject({
      hold: rub("0.1"),
      keyName: "k",
      allowedModels: ["llama"],
    });
    expect(book.admit(ref, hash, { kind: "named", model: "other" }, rub("0.1"))).toBeNull();
    expect(book.admit(ref, hash, { kind: "unknown" }, rub("0.1"))).toBeNull();
    expect(book.admit(ref, "0".repeat(64), llama, rub("0.1"))).toBeNull();
    store.clock.advance(3_600_000);
    expect(book.admit(ref, hash, llama, rub("0.1"))).toBeNull();
  });

  it("stops admitting on facts older than FACTS_MAX_AGE_MS until they are read again", async () => {
    const { ref, hash } = await key();
    await warm(ref, hash, rub("0.1"));
    store.clock.advance(FACTS_MAX_AGE_MS + 1);
    expect(book.admit(ref, hash, NONE, rub("0.1"))).toBeNull();
    await book.idle(5000);
    expect(book.admit(ref, hash, NONE, rub("0.1"))).toMatchObject({ hold: rub("0.1"), keyName: "k" });
  });

  it("takes no lease while the change feed does not carry the account", async () => {
    feedReady = false;
    const { ref, hash } = await key();
    expect(await warm(ref, hash, rub("0.1"))).toBeNull();
    expect(book.stats().leases).toBe(0);
  });

  it("gives back what requests do not hold when the key changes, and the rest once they are settled", async () => {
    const { ref, hash } = await key({ budget: "10" });
    const admission = (await warm(ref, hash, rub("0.1"))) as LeaseAdmission;
    book.changed("acme", ref.keyId);
    await book.idle(5000);
    expect(book.stats()).toMatchObject({ leases: 0, dying: 1 });
    expect((await store.billing.reserved("acme")).account).toBe(rub("0.1"));
    // Its settlement puts nothing back (the lease is given up), and the lease is deleted.
    const result = await settle(ref, admission, rub("0.05"));
    expect(result?.lease?.delta).toBe(-rub("0.1"));
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    expect(book.stats()).toMatchObject({ leases: 0, dying: 0 });
    // The next request starts a new lease, under a new id.
    expect(await warm(ref, hash, rub("0.1"))).toMatchObject({ lease: { live: true } });
    expect(admission.lease.id).not.toBe((book.admit(ref, hash, NONE, 1) as LeaseAdmission).lease.id);
  });

  it("gives back a lease unused for IDLE_MS", async () => {
    const { ref, hash } = await key();
    await settle(ref, (await warm(ref, hash, rub("0.1"))) as LeaseAdmission, 0);
    store.clock.advance(IDLE_MS + 1);
    book.tick();
    await book.idle(5000);
    book.tick();
    expect(book.stats()).toMatchObject({ leases: 0, dying: 0 });
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("stops counting on a lease whose call failed (the grant may have been made) and lets go of it later", async () => {
    const { ref, hash } = await key();
    const open = (await warm(ref, hash, rub("0.1"))) as LeaseAdmission;
    store.clock.advance(FACTS_MAX_AGE_MS + 1);
    failNext = new Error("connection lost");
    expect(book.admit(ref, hash, NONE, rub("0.1"))).toBeNull();
    await book.idle(5000);
    expect(errors).toHaveLength(1);
    expect(book.stats().leases).toBe(0);
    // What the open request holds stays reserved until it is settled; then nothing does.
    expect((await store.billing.reserved("acme")).account).toBe(rub("0.1"));
    await settle(ref, open, rub("0.05"));
    book.tick();
    await book.idle(5000);
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    expect(book.stats().dying).toBe(0);
  });

  it("stops counting on a lease when a settlement comes back a duplicate (its first effect is unknown)", async () => {
    const { ref, hash } = await key();
    const admission = (await warm(ref, hash, rub("0.1"))) as LeaseAdmission;
    book.settled(admission, { duplicate: true });
    await book.idle(5000);
    expect(book.stats()).toMatchObject({ leases: 0 });
  });

  it("forgets a lease that expired in Redis, with no call to bring it back, and charges its open request", async () => {
    const { ref, hash } = await key({ budget: "10" });
    const open = (await warm(ref, hash, rub("0.1"))) as LeaseAdmission;
    // The replica was cut off for longer than the lease's life: another script released it meanwhile.
    store.clock.advance(61_000);
    expect(book.admit(ref, hash, NONE, rub("0.1"))).toBeNull();
    await book.idle(5000);
    expect(book.stats()).toMatchObject({ leases: 0, dying: 1 });
    const before = calls;
    const result = await settle(ref, open, rub("0.05"));
    expect(result?.lease).toEqual({ delta: 0, live: false });
    book.tick();
    await book.idle(5000);
    expect(calls).toBe(before);
    expect(book.stats().dying).toBe(0);
    expect((await store.keys.get(ref))?.spent).toBe(rub("0.05"));
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("forgets a lease a failover lost (no record, no expiry marker) rather than growing it anew under its id", async () => {
    const { ref, hash } = await key({ budget: "10" });
    const open = (await warm(ref, hash, rub("0.1"))) as LeaseAdmission;
    expect(book.stats()).toMatchObject({ leased: rub("0.8"), held: rub("0.1") });
    // The promoted master never received the lease: its record and what it reserved are gone.
    const names = store.redisKeys;
    await store.redis.hdel(names.reservationRecords("acme"), open.leaseId);
    await store.redis.zrem(names.reservations("acme"), open.leaseId);
    await store.redis.del(names.reserved("acme"));
    // The next refresh finds nothing where the mirror counts 0.8 ₽: the lease is lost, not granted again
    // (which would have counted the old 0.8 ₽ on top of the new grant and admitted beyond what Redis holds).
    store.clock.advance(FACTS_MAX_AGE_MS);
    book.tick();
    await book.idle(5000);
    expect(book.stats()).toMatchObject({ leases: 0 });
    expect(book.admit(ref, hash, NONE, rub("0.1"))).toBeNull();
    await book.idle(5000);
    expect(book.admitted).toBe(1);
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    // Its open request is charged all the same.
    await settle(ref, open, rub("0.05"));
    expect((await store.keys.get(ref))?.spent).toBe(rub("0.05"));
  });

  it("gives every lease back at once when told to (feed lost, shutdown)", async () => {
    const one = await key();
    const two = await key();
    await warm(one.ref, one.hash, rub("0.1"));
    await warm(two.ref, two.hash, rub("0.1"));
    book.releaseAll();
    // At once: gone from the book before anything is awaited, their money back once the calls are done.
    expect(book.stats().leases).toBe(0);
    await book.idle(5000);
    expect(book.stats().leases).toBe(0);
    expect((await store.billing.reserved("acme")).account).toBe(rub("0.2"));
  });

  it("takes no lease on a key another replica reclaimed from, for a while", async () => {
    const { ref, hash } = await key();
    await warm(ref, hash, rub("0.1"));
    book.changed("acme", `reclaim ${ref.keyId}`);
    await book.idle(5000);
    expect(await warm(ref, hash, rub("0.1"))).toBeNull();
  });
});
