// The settle and extend scripts against a real Redis: the money path's guarantees, one by one. (The reserve
// script's: reserve-script.test.ts.)

import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseRubles } from "../../../src/core/money.js";
import { PURGE_LIMIT } from "../../../src/store/billing/billing-connection.js";
import { BillingStore } from "../../../src/store/billing/billing-store.js";
import { runScript } from "../../../src/store/scripts.js";
import { billingScripts } from "../../helpers/billing-scripts.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const rub = (text: string) => parseRubles(text, "test amount");

let store: TestStore;

beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

const { account, key, hashes, reserve, reserveInput, settleInput } = billingScripts(() => store);

describe("settle", () => {
  it("releases the reservation, charges spent and balance, and counts the day's usage", async () => {
    await account("100");
    const { ref } = await key({ budget: "50" });
    const reservation = reserveInput(rub("10"));
    await reserve(ref, reservation);
    const settled = await store.billing.settle({
      ...settleInput(reservation.reservationId, rub("2.5"), {
        estimated: true,
        failed: true,
        latencyMs: 300,
      }),
      ref,
    });
    expect(settled).toEqual({
      duplicate: false,
      balance: rub("97.5"),
      budget: rub("50"),
      spent: rub("2.5"),
      period: "month",
      events: 0,
      windows: { key: [{ period: "month", budget: rub("50"), spent: rub("2.5") }], account: [] },
    });
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    const usage = await store.redis.hgetall(
      store.redisKeys.usage("acme", ref.keyId, store.calendar.dayOf(store.clock.now())),
    );
    expect(usage).toEqual({
      prompt_tokens: "10",
      completion_tokens: "20",
      cost: String(rub("2.5")),
      errors: "1",
      estimated: "1",
      latency_ms_sum: "300",
      lat_le_500: "1",
    });
    expect(
      await store.redis.ttl(
        store.redisKeys.usage("acme", ref.keyId, store.calendar.dayOf(store.clock.now())),
      ),
    ).toBeGreaterThan(29 * 86_400);
  });

  it("charges a settlement only once, however often it is retried", async () => {
    await account("100");
    const { ref } = await key({ budget: "50" });
    const reservation = reserveInput(rub("10"));
    await reserve(ref, reservation);
    const input = settleInput(reservation.reservationId, rub("3"));
    await store.billing.settle({ ...input, ref });
    expect(await store.billing.settle({ ...input, ref })).toEqual({ duplicate: true });
    expect(await store.billing.settle({ ...input, ref })).toMatchObject({ duplicate: true });
    expect((await store.accounts.require("acme")).balance).toBe(rub("97"));
    expect((await store.keys.get(ref))?.spent).toBe(rub("3"));
  });

  it("charges the full cost when usage exceeded the reservation, past the budget if it must", async () => {
    await account("100");
    const { ref } = await key({ budget: "5" });
    const reservation = reserveInput(rub("5"));
    await reserve(ref, reservation);
    expect(
      await store.billing.settle({ ...settleInput(reservation.reservationId, rub("7")), ref }),
    ).toMatchObject({
      spent: rub("7"),
      balance: rub("93"),
    });
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("charges a request whose reservation expired but was not yet released exactly once, and releases it once", async () => {
    await account("100");
    const { ref } = await key();
    const reservation = reserveInput(rub("10"));
    await reserve(ref, reservation);
    store.clock.advance(120_000); // past its expiry, but no script has released it yet
    const input = settleInput(reservation.reservationId, rub("4"));
    expect(await store.billing.settle({ ...input, ref })).toMatchObject({
      duplicate: false,
      balance: rub("96"),
    });
    expect(await store.billing.settle({ ...input, ref })).toMatchObject({ duplicate: true });
    expect((await store.accounts.require("acme")).balance).toBe(rub("96"));
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    // The settlement released it; the next purge of expired reservations does not release it again, which
    // would take another request's reservation away.
    const other = reserveInput(rub("3"));
    expect(await reserve(ref, other)).toMatchObject({
      ok: true,
      expired: 0,
      accountReserved: rub("3"),
    });
    expect(await store.billing.reserved("acme")).toEqual({
      account: rub("3"),
      keys: { [ref.keyId]: rub("3") },
    });
  });

  it("charges a request exactly once when it settles after its expired reservation was released", async () => {
    await account("100");
    const { ref } = await key({ budget: "50" });
    const late = reserveInput(rub("10"));
    await reserve(ref, late);
    store.clock.advance(60_000);
    // Another request, a long one, releases the expired reservation and holds its own.
    const running = reserveInput(rub("3"), { expiresAt: store.clock.now() + 7_200_000 });
    expect(await reserve(ref, running)).toMatchObject({
      ok: true,
      expired: 1,
      accountReserved: rub("3"),
    });
    expect(await store.redis.hget(store.redisKeys.reservationRecords("acme"), late.reservationId)).toBe(
      "expired",
    );

    // The late request finishes well within billing.lateSettlementSeconds (a day here).
    store.clock.advance(3_600_000);
    const input = settleInput(late.reservationId, rub("4"));
    expect(await store.billing.settle({ ...input, ref })).toMatchObject({
      duplicate: false,
      balance: rub("96"),
      spent: rub("4"),
    });
    // Nothing released twice: the running request's reservation is intact.
    expect(await store.billing.reserved("acme")).toEqual({
      account: rub("3"),
      keys: { [ref.keyId]: rub("3") },
    });
    expect(await store.redis.hget(store.redisKeys.reservationRecords("acme"), late.reservationId)).toBeNull();
    expect(await store.redis.zscore(store.redisKeys.reservations("acme"), late.reservationId)).toBeNull();

    expect(await store.billing.settle({ ...input, ref })).toEqual({ duplicate: true });
    expect(await reserve(ref, reserveInput(0))).toMatchObject({
      ok: true,
      expired: 0,
      accountReserved: rub("3"),
    });
    expect((await store.accounts.require("acme")).balance).toBe(rub("96"));
    expect((await store.keys.get(ref))?.spent).toBe(rub("4"));
    expect(await store.billing.reserved("acme")).toEqual({
      account: rub("3"),
      keys: { [ref.keyId]: rub("3") },
    });
  });

  it("remembers an expired reservation for the late-settlement window, then forgets it, and still charges its request once", async () => {
    await account("100");
    const { ref } = await key();
    const reservation = reserveInput(rub("10"));
    await reserve(ref, reservation);
    store.clock.advance(60_000);
    const probe = reserveInput(0);
    expect(await reserve(ref, probe)).toMatchObject({ ok: true, expired: 1 });
    await store.billing.settle({ ...settleInput(probe.reservationId, 0), ref });
    expect(
      await store.redis.hget(store.redisKeys.reservationRecords("acme"), reservation.reservationId),
    ).toBe("expired");
    // The store under test remembers expired reservations for a day.
    store.clock.advance(86_400_000 + 1);
    const later = reserveInput(0);
    expect(await reserve(ref, later)).toMatchObject({ ok: true, expired: 0 });
    expect(
      await store.redis.hget(store.redisKeys.reservationRecords("acme"), reservation.reservationId),
    ).toBeNull();
    // Past the window the record is gone, but no marker says the request was settled: it ran, so it is
    // charged what it cost, once.
    const late = { ...settleInput(reservation.reservationId, rub("1")), ref };
    expect(await store.billing.settle(late)).toMatchObject({ duplicate: false, vanished: true });
    expect(await store.billing.settle(late)).toEqual({ duplicate: true });
    expect((await store.accounts.require("acme")).balance).toBe(rub("99"));
  });

  it("leaves the balance alone for a free request but still counts it", async () => {
    await account("100");
    const { ref } = await key();
    const reservation = reserveInput(0);
    await reserve(ref, reservation);
    expect(await store.billing.settle({ ...settleInput(reservation.reservationId, 0), ref })).toMatchObject({
      balance: rub("100"),
    });
    const day = store.calendar.dayOf(store.clock.now());
    expect(await store.redis.hgetall(store.redisKeys.usage("acme", ref.keyId, day))).toEqual({
      lat_le_250: "1",
      latency_ms_sum: "120",
      prompt_tokens: "10",
      completion_tokens: "20",
    });
  });

  it("leaves nothing behind in Redis once a request is settled", async () => {
    await account("100");
    const { ref } = await key();
    for (const amount of [rub("1"), 0]) {
      const reservation = reserveInput(amount);
      await reserve(ref, reservation);
      await store.billing.settle({ ...settleInput(reservation.reservationId, amount), ref });
    }
    expect(await store.redis.hlen(store.redisKeys.reservationRecords("acme"))).toBe(0);
    expect(await store.redis.zcard(store.redisKeys.reservations("acme"))).toBe(0);
    expect(await store.redis.exists(store.redisKeys.reserved("acme"))).toBe(0);
  });
  it("keeps the key's recent requests for requestLog.retentionDays after the latest one", async () => {
    await account("100");
    const { ref } = await key();
    const billing = new BillingStore(
      store.redis,
      store.redisKeys,
      {
        usageRetentionDays: 31,
        lateSettlementSeconds: 86_400,
        requestLogMaxPerKey: 10,
        requestLogRetentionDays: 2,
      },
      store.stores.events,
    );
    const list = store.redisKeys.requestLog("acme", ref.keyId);
    const twoDays = 2 * 86_400_000;
    for (let i = 0; i < 2; i++) {
      const reservation = reserveInput(1);
      await billing.reserve(ref, { tokens: 0, keyHash: hashes.get(ref.keyId) as string, ...reservation });
      await billing.settle({ ...settleInput(reservation.reservationId, 1), ref });
      const ttl = await store.redis.pttl(list);
      expect(ttl).toBeGreaterThan(twoDays - 60_000);
      expect(ttl).toBeLessThanOrEqual(twoDays);
      // Every settlement starts the lifetime again: shorten it to see the next one restore it.
      await store.redis.pexpire(list, 1000);
    }
    expect(await store.redis.llen(list)).toBe(2);
  });
});

describe("settling several requests of an account in one call", () => {
  it("settles each as if alone, in order, and answers for each", async () => {
    await account("100");
    const a = await key({ budget: "50" });
    const b = await key();
    const [a1, a2, b1] = [reserveInput(rub("10")), reserveInput(rub("10")), reserveInput(rub("10"))];
    for (const [ref, input] of [
      [a.ref, a1],
      [a.ref, a2],
      [b.ref, b1],
    ] as const) {
      await reserve(ref, input);
    }

    const results = await store.billing.settleMany("acme", [
      { ...settleInput(a1.reservationId, rub("1")), ref: a.ref },
      { ...settleInput(b1.reservationId, rub("2"), { failed: true, latencyMs: 40 }), ref: b.ref },
      // The same settlement twice in one call (a retry that caught up with its first attempt).
      { ...settleInput(a1.reservationId, rub("1")), ref: a.ref },
      { ...settleInput(a2.reservationId, rub("4")), ref: a.ref },
    ]);
    expect(results).toEqual([
      {
        duplicate: false,
        balance: rub("99"),
        budget: rub("50"),
        spent: rub("1"),
        period: "month",
        events: 0,
        windows: { key: [{ period: "month", budget: rub("50"), spent: rub("1") }], account: [] },
      },
      {
        duplicate: false,
        balance: rub("97"),
        budget: null,
        spent: rub("2"),
        period: "month",
        events: 0,
        windows: { key: [], account: [] },
      },
      { duplicate: true },
      {
        duplicate: false,
        balance: rub("93"),
        budget: rub("50"),
        spent: rub("5"),
        period: "month",
        events: 0,
        windows: { key: [{ period: "month", budget: rub("50"), spent: rub("5") }], account: [] },
      },
    ]);
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    const day = store.calendar.dayOf(store.clock.now());
    expect(await store.redis.hgetall(store.redisKeys.usage("acme", a.ref.keyId, day))).toMatchObject({
      cost: String(rub("5")),
      lat_le_250: "2",
      prompt_tokens: "20",
    });
    expect(await store.redis.hgetall(store.redisKeys.usage("acme", b.ref.keyId, day))).toEqual({
      cost: String(rub("2")),
      errors: "1",
      lat_le_50: "1",
      latency_ms_sum: "40",
      prompt_tokens: "10",
      completion_tokens: "20",
    });
    expect(await store.redis.lrange(store.redisKeys.requestLog("acme", a.ref.keyId), 0, -1)).toEqual([
      JSON.stringify({ request_id: a2.reservationId }),
      JSON.stringify({ request_id: a1.reservationId }),
    ]);
  });

  it("keeps what a call completed before it failed half-way, and its retry charges nothing twice", async () => {
    await account("100");
    const { ref } = await key();
    const [first, second, third] = [
      reserveInput(rub("10")),
      reserveInput(rub("10")),
      reserveInput(rub("10")),
    ];
    for (const input of [first, second, third]) await reserve(ref, input);
    // The second settlement's day has a usage hash of the wrong type: its script part fails there, after
    // it has released its reservation and charged its cost (Redis does not roll a script back).
    const badDay = "2000-01-01";
    await store.redis.set(store.redisKeys.usage("acme", ref.keyId, badDay), "not a hash");
    const inputs = [
      settleInput(first.reservationId, rub("1")),
      settleInput(second.reservationId, rub("2"), { day: badDay }),
      settleInput(third.reservationId, rub("3")),
    ];
    await expect(
      store.billing.settleMany(
        "acme",
        inputs.map((input) => ({ ...input, ref })),
      ),
    ).rejects.toThrow(/WRONGTYPE/);
    expect((await store.accounts.require("acme")).balance).toBe(rub("97"));
    expect((await store.billing.reserved("acme")).account).toBe(rub("10"));

    // Retried one by one, as the settlement queue does: the first two were made, the third is made now.
    const retried = [];
    for (const input of inputs) retried.push(await store.billing.settle({ ...input, ref }));
    expect(retried.map((r) => r.duplicate)).toEqual([true, true, false]);
    expect((await store.accounts.require("acme")).balance).toBe(rub("94"));
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("refuses a settlement of another account, and arguments that do not make whole settlements", async () => {
    await account("100");
    await account("100", "other");
    const { ref } = await key({ accountId: "other" });
    await expect(
      store.billing.settleMany("acme", [{ ...settleInput(randomUUID(), 1), ref }]),
    ).rejects.toThrow(/account other .* account acme/);
    const keys = store.redisKeys;
    await expect(
      runScript(
        store.redis,
        "settle",
        [
          keys.account("acme"),
          keys.reservations("acme"),
          keys.reservationRecords("acme"),
          keys.reserved("acme"),
        ],
        [1, 10, 1000],
      ),
    ).rejects.toThrow(/4 keys and 3 arguments do not make whole settlements/);
  });
});

describe("reservations that are never settled", () => {
  it("expire by themselves and give the budget and balance back", async () => {
    await account("10");
    const { ref } = await key({ budget: "10" });
    await reserve(ref, reserveInput(rub("10")));
    expect(await reserve(ref, reserveInput(1))).toMatchObject({
      ok: false,
      code: "budget_exceeded",
    });
    store.clock.advance(60_000);
    expect(await reserve(ref, reserveInput(rub("10")))).toMatchObject({
      ok: true,
      expired: 1,
      keyReserved: rub("10"),
    });
  });

  it("stay alive while extended, and extension never revives a settled one", async () => {
    await account("10");
    const { ref } = await key();
    const running = reserveInput(rub("4"));
    const released = reserveInput(rub("4"));
    await reserve(ref, running);
    await reserve(ref, released);
    await store.billing.settle({ ...settleInput(released.reservationId, rub("1")), ref });

    store.clock.advance(50_000);
    expect(
      await store.billing.extend(
        "acme",
        [running.reservationId, released.reservationId],
        store.clock.now() + 60_000,
      ),
    ).toBe(1);
    expect(await store.redis.zscore(store.redisKeys.reservations("acme"), released.reservationId)).toBeNull();
    // An extension to an earlier time does not shorten it.
    expect(await store.billing.extend("acme", [running.reservationId], store.clock.now())).toBe(0);
    store.clock.advance(50_000);
    expect(await reserve(ref, reserveInput(0))).toMatchObject({
      ok: true,
      expired: 0,
      accountReserved: rub("4"),
    });
  });
  it("are released at most PURGE_LIMIT per script call, the rest on the next calls", async () => {
    await account("100");
    const { ref } = await key();
    const count = PURGE_LIMIT + 50;
    for (let i = 0; i < count; i++) await reserve(ref, reserveInput(1));
    expect((await store.billing.reserved("acme")).account).toBe(count);
    store.clock.advance(60_000);
    expect(await reserve(ref, reserveInput(0))).toMatchObject({
      ok: true,
      expired: PURGE_LIMIT,
      accountReserved: 50,
    });
    expect(await reserve(ref, reserveInput(0))).toMatchObject({
      ok: true,
      expired: 50,
      accountReserved: 0,
    });
    expect(await reserve(ref, reserveInput(0))).toMatchObject({ ok: true, expired: 0 });
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    // Each stays an 'expired' marker for the late-settlement window.
    const records = Object.values(await store.redis.hgetall(store.redisKeys.reservationRecords("acme")));
    expect(records.filter((record) => record === "expired")).toHaveLength(count);
  });
});

describe("amounts near the largest the gateway holds", () => {
  it("keep every micro-ruble through top-ups and charges", async () => {
    await account("999999999.999998");
    const { ref } = await key();
    await store.accounts.topUp("acme", 1, "{}");
    expect((await store.accounts.require("acme")).balance).toBe(999_999_999_999_999);
    await expect(store.accounts.topUp("acme", 1, "{}")).rejects.toMatchObject({ code: "invalid_request" });
    const reservation = reserveInput(999_999_999_999_998);
    expect(await reserve(ref, reservation)).toMatchObject({
      ok: true,
      accountReserved: 999_999_999_999_998,
    });
    expect(
      await store.billing.settle({ ...settleInput(reservation.reservationId, 999_999_999_999_997), ref }),
    ).toMatchObject({
      balance: 2,
      spent: 999_999_999_999_997,
    });
  });
});

describe("under concurrency", () => {
  it("never reserves more than the budget, whatever the number of parallel requests", async () => {
    await account("1000");
    const { ref } = await key({ budget: "10" });
    const results = await Promise.all(
      Array.from({ length: 200 }, () => reserve(ref, reserveInput(rub("0.3")))),
    );
    const accepted = results.filter((r) => r.ok).length;
    expect(accepted).toBe(33); // 33 × 0.3 = 9.9 ≤ 10 < 34 × 0.3
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.code === "budget_exceeded")).toBe(true);
    expect((await store.billing.reserved("acme")).account).toBe(33 * rub("0.3"));
  });

  it("keeps the balance exact under parallel top-ups and charges", async () => {
    await account("1000");
    const { ref } = await key();
    const charges = Array.from({ length: 150 }, (_, i) => ({ id: randomUUID(), cost: 1_000 + i }));
    for (const charge of charges) await reserve(ref, reserveInput(charge.cost, { reservationId: charge.id }));
    const topUps = Array.from({ length: 150 }, (_, i) => 7 + i);
    await Promise.all([
      ...charges.map((charge) => store.billing.settle({ ...settleInput(charge.id, charge.cost), ref })),
      ...topUps.map((amount) => store.accounts.topUp("acme", amount, "{}")),
      // Retries of the same settlements, racing the first attempts: none may charge twice.
      ...charges
        .slice(0, 50)
        .map((charge) => store.billing.settle({ ...settleInput(charge.id, charge.cost), ref })),
    ]);
    const charged = charges.reduce((sum, c) => sum + c.cost, 0);
    const added = topUps.reduce((sum, a) => sum + a, 0);
    expect((await store.accounts.require("acme")).balance).toBe(rub("1000") - charged + added);
    expect((await store.keys.get(ref))?.spent).toBe(charged);
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });
});

describe("budget periods in the scripts", () => {
  it("start the spent amount again at the boundary in the billing time zone, and a lagging replica cannot undo it", async () => {
    store.close();
    store = await openStore({ timezone: "Asia/Vladivostok" }); // UTC+10
    store.clock.set("2026-11-21T13:59:00.000Z"); // 23:59 on Saturday in Vladivostok
    await account("100");
    const { ref } = await key({ budget: "10", period: "day" });
    const first = reserveInput(rub("6"));
    await reserve(ref, first);
    await store.billing.settle({ ...settleInput(first.reservationId, rub("6")), ref });
    expect(await reserve(ref, reserveInput(rub("5")))).toMatchObject({
      ok: false,
      code: "budget_exceeded",
    });

    store.clock.set("2026-11-21T14:00:00.000Z"); // midnight: a new day
    const fresh = reserveInput(rub("5"));
    expect(await reserve(ref, fresh)).toMatchObject({ ok: true, spent: 0 });
    await store.billing.settle({ ...settleInput(fresh.reservationId, rub("5")), ref });

    // A replica whose clock is a second behind still computes yesterday; it must not reset today's spending.
    const lagging = reserveInput(rub("5"), { now: Date.parse("2026-11-21T13:59:59.000Z") });
    lagging.periods = store.calendar.at(lagging.now);
    expect(await reserve(ref, lagging)).toMatchObject({
      ok: true,
      spent: rub("5"),
      keyReserved: rub("5"),
    });
    expect(await reserve(ref, reserveInput(1))).toMatchObject({
      ok: false,
      code: "budget_exceeded",
    });
  });

  it("charge a request that settles after the boundary to the new period", async () => {
    await account("100");
    const { ref } = await key({ budget: "10", period: "month" });
    store.clock.set("2026-11-30T23:59:59.000Z");
    const reservation = reserveInput(rub("3"));
    await reserve(ref, reservation);
    store.clock.set("2026-12-01T00:00:01.000Z");
    expect(
      await store.billing.settle({ ...settleInput(reservation.reservationId, rub("2")), ref }),
    ).toMatchObject({
      spent: rub("2"),
    });
    expect(await store.keys.get(ref)).toMatchObject({
      spent: rub("2"),
      periodStart: Date.parse("2026-12-01T00:00:00Z"),
    });
  });
});
