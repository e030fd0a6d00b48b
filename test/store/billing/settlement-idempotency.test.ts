// A settlement is made exactly once by its marker in the replica's settlement hash, not by its reservation
// record: sent again it changes nothing, whether its reservation is still there, expired, or gone (lost in a
// failover), and a request whose reservation or lease vanished is still charged what it cost. Against the
// suite's real redis-server.

import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KeyRef } from "../../../src/core/key-ref.js";
import { parseRubles } from "../../../src/core/money.js";
import type { ReserveInput } from "../../../src/store/billing/reserve-script.js";
import { LEDGER_FIELD, type Settlement } from "../../../src/store/billing/settle-script.js";
import { ACTOR } from "../../helpers/actor.js";
import { reservationAt, settlementAt } from "../../helpers/billing-scripts.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const rub = (text: string) => parseRubles(text, "test amount");

let store: TestStore;
let ref: KeyRef;
let hash: string;

beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  const { record } = await store.keyService.create({ accountId: "acme", name: "k", budget: "50" }, ACTOR);
  ref = { accountId: "acme", keyId: record.id };
  hash = (await store.keyService.show(record.id)).hash as string;
});
afterEach(() => store.close());

async function reserve(amount: number, overrides: Partial<ReserveInput> = {}): Promise<string> {
  const reservationId = randomUUID();
  const reply = await store.billing.reserve(ref, {
    tokens: 0,
    keyHash: hash,
    ...reservationAt(store, amount, { ...overrides, reservationId }),
  });
  expect(reply.ok).toBe(true);
  return reservationId;
}

function settlement(reservationId: string, cost: number, fields: Partial<Settlement> = {}): Settlement {
  return {
    ...settlementAt(store, reservationId, cost, {
      requestId: `req-${reservationId}`,
      logEntry: JSON.stringify({ request_id: `req-${reservationId}` }),
    }),
    ref,
    ...fields,
  };
}

/** What the account's books say: balance, the key's spent amount, its recent requests, the replica's ledger. */
async function books() {
  const markers = store.redisKeys.settlementMarkers("acme", store.billing.replicaId);
  return {
    balance: (await store.accounts.require("acme")).balance,
    spent: (await store.keys.get(ref))?.spent,
    requests: await store.redis.llen(store.redisKeys.requestLog("acme", ref.keyId)),
    ledger: Number((await store.redis.hget(markers, LEDGER_FIELD)) ?? 0),
    reserved: await store.billing.reserved("acme"),
  };
}

/** What a failover that lost the reserve call's writes leaves: no record, and nothing held for it. */
async function loseReservation(reservationId: string, amount: number): Promise<void> {
  await store.redis.hdel(store.redisKeys.reservationRecords("acme"), reservationId);
  await store.redis.zrem(store.redisKeys.reservations("acme"), reservationId);
  const reserved = store.redisKeys.reserved("acme");
  await store.redis.hincrby(reserved, ref.keyId, -amount);
  await store.redis.hincrby(reserved, "*", -amount);
  await store.redis.hincrby(reserved, `${ref.keyId}#n`, -1);
}

describe("a settlement sent again", () => {
  it("is charged once when sent twice, in two calls or twice in one", async () => {
    const first = await reserve(rub("5"));
    await store.billing.settle(settlement(first, rub("2")));
    expect(await store.billing.settle(settlement(first, rub("2")))).toEqual({ duplicate: true });
    const second = await reserve(rub("5"));
    const replies = await store.billing.settleMany("acme", [
      settlement(second, rub("3")),
      settlement(second, rub("3")),
    ]);
    expect(replies.map((reply) => reply.duplicate)).toEqual([false, true]);
    expect(await books()).toEqual({
      balance: rub("95"),
      spent: rub("5"),
      requests: 2,
      ledger: rub("5"),
      reserved: { account: 0, keys: {} },
    });
  });

  it("is charged once after its reservation expired, released or not", async () => {
    const unreleased = await reserve(rub("5"));
    const released = await reserve(rub("5"));
    store.clock.advance(120_000);
    // One settles past its expiry before anything released it; the other after another reservation did,
    // which left an 'expired' record in its place.
    expect(await store.billing.settle(settlement(unreleased, rub("1")))).toMatchObject({ duplicate: false });
    await reserve(0);
    expect(await store.redis.hget(store.redisKeys.reservationRecords("acme"), released)).toBe("expired");
    expect(await store.billing.settle(settlement(released, rub("2")))).toMatchObject({ duplicate: false });
    for (const id of [unreleased, released]) {
      expect(await store.billing.settle(settlement(id, rub("9")))).toEqual({ duplicate: true });
    }
    expect(await books()).toMatchObject({
      balance: rub("97"),
      spent: rub("3"),
      requests: 2,
      ledger: rub("3"),
    });
  });

  it("charges a request whose reservation vanished what it cost, once, and releases nothing", async () => {
    const lost = await reserve(rub("5"));
    const running = await reserve(rub("4"));
    await loseReservation(lost, rub("5"));
    expect(await store.billing.settle(settlement(lost, rub("2")))).toMatchObject({
      duplicate: false,
      vanished: true,
      balance: rub("98"),
      spent: rub("2"),
    });
    expect(await store.billing.settle(settlement(lost, rub("2")))).toEqual({ duplicate: true });
    // The running request's reservation is untouched.
    expect(await books()).toMatchObject({
      balance: rub("98"),
      spent: rub("2"),
      requests: 1,
      ledger: rub("2"),
      reserved: { account: rub("4"), keys: { [ref.keyId]: rub("4") } },
    });
    await store.billing.settle(settlement(running, rub("1")));
    expect(await books()).toMatchObject({ balance: rub("97"), reserved: { account: 0, keys: {} } });
  });

  it("settles nothing for a release whose reservation does not exist, and records no request", async () => {
    const never = randomUUID();
    expect(await store.billing.settle(settlement(never, 0, { failed: true }))).toEqual({
      duplicate: false,
      nothing: true,
    });
    expect(await store.billing.settle(settlement(never, 0, { failed: true }))).toEqual({ duplicate: true });
    expect(await books()).toMatchObject({ balance: rub("100"), spent: 0, requests: 0, ledger: 0 });
  });

  it("charges a leased request once, and once when its lease vanished", async () => {
    const now = store.clock.now();
    const leaseId = "lease:r1:k:0";
    await store.billing.lease(ref, {
      leaseId,
      amount: rub("4"),
      now,
      periods: store.calendar.at(now),
      expiresAt: now + 60_000,
      share: 2,
      grow: true,
    });
    const leased = (marker: string, cost: number) =>
      settlement(randomUUID(), cost, { leaseHold: { leaseId, hold: rub("1"), marker, share: 2 } });
    const live = leased("m1", rub("1"));
    expect(await store.billing.settle(live)).toMatchObject({ duplicate: false, lease: { live: true } });
    expect(await store.billing.settle(live)).toEqual({ duplicate: true });
    // The failover lost the lease record and what it held.
    await store.redis.hdel(store.redisKeys.reservationRecords("acme"), leaseId);
    await store.redis.del(store.redisKeys.reserved("acme"));
    const orphan = leased("m2", rub("0.5"));
    expect(await store.billing.settle(orphan)).toMatchObject({ duplicate: false, lease: { live: false } });
    expect(await store.billing.settle(orphan)).toEqual({ duplicate: true });
    expect(await books()).toMatchObject({
      balance: rub("98.5"),
      spent: rub("1.5"),
      requests: 2,
      ledger: rub("1.5"),
    });
  });

  it("writes even when it is a duplicate, so that a WAIT on a new connection covers its first attempt", async () => {
    const id = await reserve(rub("1"));
    await store.billing.settle(settlement(id, rub("1")));
    const markers = store.redisKeys.settlementMarkers("acme", store.billing.replicaId);
    await store.redis.persist(markers);
    expect(await store.redis.pttl(markers)).toBe(-1);
    expect(await store.billing.settle(settlement(id, rub("1")))).toEqual({ duplicate: true });
    expect(await store.redis.pttl(markers)).toBeGreaterThan(86_000_000);
  });

  it("charges again only once its marker is acknowledged: the replica is done with it and never sends it again", async () => {
    const id = await reserve(rub("1"));
    const sent = settlement(id, rub("1"));
    await store.billing.settle(sent);
    const markers = store.redisKeys.settlementMarkers("acme", store.billing.replicaId);
    expect((await store.redis.hkeys(markers)).sort()).toEqual([LEDGER_FIELD, id].sort());
    await store.billing.settleMany("acme", [settlement(randomUUID(), 0)], [id]);
    expect(await store.redis.hexists(markers, id)).toBe(0);
    expect(await store.redis.hget(markers, LEDGER_FIELD)).toBe(String(rub("1")));
  });
});
