// The admission lease against a real Redis: lease-5.lua (grant, shrink, facts, refusals, expiry), the
// leased settlements of settle-n.lua (exactly once by marker, the hold out of the lease and back in, a lease
// that is gone), and the change messages the key and account scripts publish.

import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import type { KeyRef } from "../../../src/core/key-ref.js";
import { parseRubles } from "../../../src/core/money.js";
import type { LeaseInput } from "../../../src/store/billing/lease-script.js";
import { LEDGER_FIELD, type Settlement } from "../../../src/store/billing/settle-script.js";
import { ACTOR } from "../../helpers/actor.js";
import { leaseAt, settlementAt } from "../../helpers/billing-scripts.js";
import { openStore, type TestStore } from "../../helpers/store.js";
import { waitUntil } from "../../helpers/wait.js";

const rub = (text: string) => parseRubles(text, "test amount");

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
});
afterEach(() => store.close());

async function key(options: { budget?: string; rpm?: number } = {}) {
  const { record } = await store.keyService.create(
    { accountId: "acme", name: "test", budget: options.budget, ...(options.rpm && { rpm: options.rpm }) },
    ACTOR,
  );
  return { ref: { accountId: "acme", keyId: record.id } satisfies KeyRef, record };
}

function lease(ref: KeyRef, leaseId: string, amount: number, overrides: Partial<LeaseInput> = {}) {
  return store.billing.lease(ref, leaseAt(store, leaseId, amount, overrides));
}

function leasedSettlement(
  leaseId: string,
  hold: number,
  cost: number,
  marker: string = randomUUID(),
  share = 2,
): Omit<Settlement, "ref"> {
  return settlementAt(store, randomUUID(), cost, { leaseHold: { leaseId, hold, marker, share } });
}

describe("lease", () => {
  it("grants at most half of what the budget would leave without it, holds it as reserved, and returns the key's facts", async () => {
    const { ref, record } = await key({ budget: "10" });
    const grant = await lease(ref, "lease:r1:a:0", rub("8"));
    expect(grant).toMatchObject({
      state: "ok",
      delta: rub("5"),
      amount: rub("5"),
      keyName: "test",
      logBodies: true,
      allowedModels: null,
      expiresAt: null,
      hash: record.hash,
    });
    expect(await store.billing.reserved("acme")).toEqual({
      account: rub("5"),
      keys: { [ref.keyId]: rub("5") },
    });
    // A second replica gets half of what is left: the two never hold the whole budget.
    const second = await lease(ref, "lease:r2:a:0", rub("8"));
    expect(second.amount).toBe(rub("2.5"));
    // Asking again does not compound: half of what is available without it (5 + 2.5) is less than it holds.
    const again = await lease(ref, "lease:r1:a:0", rub("8"));
    expect(again).toMatchObject({ delta: 0, amount: rub("5") });
    // Once the other gives back, it may grow to half of the whole again.
    await lease(ref, "lease:r2:a:0", 0);
    expect(await lease(ref, "lease:r1:a:0", rub("8"))).toMatchObject({ delta: 0, amount: rub("5") });
    expect((await store.billing.reserved("acme")).account).toBe(rub("5"));
  });

  it("is bounded by the balance as well as the budget", async () => {
    const { ref } = await key();
    const grant = await lease(ref, "lease:r1:b:0", rub("1000"));
    expect(grant.amount).toBe(rub("50"));
  });

  it("shrinks to any amount asked for and is deleted at 0, giving everything back", async () => {
    const { ref } = await key({ budget: "10" });
    await lease(ref, "lease:r1:c:0", rub("4"));
    expect(await lease(ref, "lease:r1:c:0", rub("1"))).toMatchObject({ delta: -rub("3"), amount: rub("1") });
    expect(await lease(ref, "lease:r1:c:0", 0)).toMatchObject({ delta: -rub("1"), amount: 0 });
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    expect(await store.redis.hexists(store.redisKeys.reservationRecords("acme"), "lease:r1:c:0")).toBe(0);
  });

  it("is not granted on a key with limits, nor on a revoked or disabled one, which still may shrink", async () => {
    const limited = await key({ rpm: 10 });
    expect(await lease(limited.ref, "lease:r1:d:0", rub("1"))).toMatchObject({ state: "limits", amount: 0 });
    const { ref } = await key({ budget: "10" });
    await lease(ref, "lease:r1:e:0", rub("2"));
    await store.keyService.setDisabled(ref.keyId, true, ACTOR);
    expect(await lease(ref, "lease:r1:e:0", rub("4"))).toMatchObject({
      state: "key_disabled",
      amount: rub("2"),
    });
    expect(await lease(ref, "lease:r1:e:0", 0)).toMatchObject({ state: "key_disabled", amount: 0 });
    await store.keyService.revoke(ref.keyId, ACTOR);
    expect((await lease(ref, "lease:r1:e:1", rub("1"))).state).toBe("key_revoked");
  });

  it("never grows on a call that only shrinks, not even a lease that no longer exists", async () => {
    const { ref } = await key({ budget: "10" });
    await lease(ref, "lease:r1:m:0", rub("1"));
    expect(await lease(ref, "lease:r1:m:0", rub("3"), { grow: false })).toMatchObject({
      delta: 0,
      amount: rub("1"),
    });
    expect(await lease(ref, "lease:r1:m:1", rub("3"), { grow: false })).toMatchObject({
      delta: 0,
      amount: 0,
    });
    expect((await store.billing.reserved("acme")).account).toBe(rub("1"));
  });

  it("expires like a reservation, and a replica that calls it again learns it was lost", async () => {
    const { ref } = await key({ budget: "10" });
    await lease(ref, "lease:r1:f:0", rub("2"), { expiresAt: store.clock.now() + 1000 });
    store.clock.advance(2000);
    const after = await lease(ref, "lease:r1:f:0", rub("2"));
    expect(after).toMatchObject({ state: "lost", amount: 0, expired: 1 });
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });
});

describe("a leased settlement", () => {
  it("charges its cost, takes its hold out of the lease and puts it back while the budget is far", async () => {
    const { ref } = await key({ budget: "10" });
    await lease(ref, "lease:r1:g:0", rub("4"));
    const [settled] = await store.billing.settleMany("acme", [
      { ...leasedSettlement("lease:r1:g:0", rub("1"), rub("0.25")), ref },
    ]);
    expect(settled).toMatchObject({ duplicate: false, spent: rub("0.25"), lease: { delta: 0, live: true } });
    expect(await store.billing.reserved("acme")).toEqual({
      account: rub("4"),
      keys: { [ref.keyId]: rub("4") },
    });
    expect((await store.accounts.require("acme")).balance).toBe(rub("99.75"));
  });

  it("puts back only the share of what is free near the budget, so the lease shrinks", async () => {
    const { ref } = await key({ budget: "10" });
    await lease(ref, "lease:r1:h:0", rub("5"));
    const [settled] = await store.billing.settleMany("acme", [
      { ...leasedSettlement("lease:r1:h:0", rub("5"), rub("4.5")), ref },
    ]);
    // After the charge: spent 4.5 and the lease empty, so 5.5 are available and the lease may hold half.
    expect(settled?.lease).toEqual({ delta: rub("2.75") - rub("5"), live: true });
    expect((await store.billing.reserved("acme")).account).toBe(rub("2.75"));
  });

  it("puts nothing back when the replica gives the lease up (share 0)", async () => {
    const { ref } = await key({ budget: "10" });
    await lease(ref, "lease:r1:i:0", rub("2"));
    const [settled] = await store.billing.settleMany("acme", [
      { ...leasedSettlement("lease:r1:i:0", rub("2"), rub("1"), randomUUID(), 0), ref },
    ]);
    expect(settled?.lease).toEqual({ delta: -rub("2"), live: true });
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("is made exactly once: a retry with the same marker is a duplicate, until the marker is acknowledged", async () => {
    const { ref } = await key({ budget: "10" });
    await lease(ref, "lease:r1:j:0", rub("2"));
    const input = leasedSettlement("lease:r1:j:0", rub("1"), rub("0.5"), "m1");
    await store.billing.settleMany("acme", [{ ...input, ref }]);
    const [again] = await store.billing.settleMany("acme", [{ ...input, ref }]);
    expect(again).toEqual({ duplicate: true });
    expect((await store.accounts.require("acme")).balance).toBe(rub("99.5"));
    const markers = store.redisKeys.settlementMarkers("acme", store.billing.replicaId);
    expect((await store.redis.hkeys(markers)).sort()).toEqual([LEDGER_FIELD, "m1"]);
    expect(await store.redis.pttl(markers)).toBeGreaterThan(0);
    // The next call acknowledges it: the marker goes.
    await store.billing.settleMany(
      "acme",
      [{ ...leasedSettlement("lease:r1:j:0", 0, 0, "m2"), ref }],
      ["m1"],
    );
    expect((await store.redis.hkeys(markers)).sort()).toEqual([LEDGER_FIELD, "m2"]);
  });

  it("is charged all the same when its lease is gone, and says so", async () => {
    const { ref } = await key({ budget: "10" });
    const [settled] = await store.billing.settleMany("acme", [
      { ...leasedSettlement("lease:r1:k:0", rub("1"), rub("0.5")), ref },
    ]);
    expect(settled).toMatchObject({ duplicate: false, spent: rub("0.5"), lease: { delta: 0, live: false } });
    expect((await store.accounts.require("acme")).balance).toBe(rub("99.5"));
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("goes in the same call as requests with reservations of their own", async () => {
    const { ref, record } = await key({ budget: "10" });
    await lease(ref, "lease:r1:l:0", rub("2"));
    const now = store.clock.now();
    const reservationId = randomUUID();
    const reserved = await store.billing.reserve(ref, {
      reservationId,
      amount: rub("1"),
      tokens: 0,
      keyHash: record.hash as string,
      now,
      periods: store.calendar.at(now),
      expiresAt: now + 60_000,
      model: { kind: "none" },
    });
    expect(reserved.ok).toBe(true);
    const plain = { ...leasedSettlement("", 0, rub("0.75")), reservationId };
    delete plain.leaseHold;
    const results = await store.billing.settleMany("acme", [
      { ...leasedSettlement("lease:r1:l:0", rub("1"), rub("0.25")), ref },
      { ...plain, ref },
    ]);
    expect(results.map((r) => r.duplicate)).toEqual([false, false]);
    expect(results[1]?.lease).toBeUndefined();
    expect((await store.accounts.require("acme")).balance).toBe(rub("99"));
    expect(await store.billing.reserved("acme")).toEqual({
      account: rub("2"),
      keys: { [ref.keyId]: rub("2") },
    });
  });
});

describe("change messages", () => {
  let subscriber: Redis;
  const messages: string[] = [];
  beforeEach(async () => {
    messages.length = 0;
    subscriber = new Redis(inject("redisUrl"));
    subscriber.on("smessage", (_channel: string, message: string) => messages.push(message));
    await subscriber.ssubscribe(store.redisKeys.changes("acme"));
  });
  afterEach(() => subscriber.disconnect());

  it("are published by revoke, disable, enable, rotate, update and top-up, on the account's channel", async () => {
    const { ref } = await key({ budget: "10" });
    await store.keyService.update(ref.keyId, { budget: "20" }, ACTOR);
    await store.keyService.setDisabled(ref.keyId, true, ACTOR);
    await store.keyService.setDisabled(ref.keyId, false, ACTOR);
    await store.keyService.rotate(ref.keyId, undefined, ACTOR);
    await store.accountService.topUp("acme", "5", ACTOR);
    await store.keyService.revoke(ref.keyId, ACTOR);
    await waitUntil(() => messages.length >= 6, "six change messages");
    expect(messages).toEqual([ref.keyId, ref.keyId, ref.keyId, ref.keyId, "*", ref.keyId]);
  });
});
