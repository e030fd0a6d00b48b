// A long request keeps its reservation while it runs; one the keeper does not track (its replica died)
// expires as usual. The keeper's periodic call is made by hand, with the clock moved by hand.

import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ReservationKeeper } from "../../src/billing/reservation-keeper.js";
import type { KeyRef } from "../../src/core/key-ref.js";
import { GatewayRequest } from "../../src/core/request.js";
import { MAX_TIMER_MS } from "../../src/core/timer-delay.js";
import { RequestTracker } from "../../src/proxy/request-tracker.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

const TTL_MS = 60_000;

let store: TestStore;
let ref: KeyRef;
let keyHash: string;
let errors: unknown[];
let keeper: ReservationKeeper;
let tracker: RequestTracker;

beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  const { record } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
  ref = { accountId: "acme", keyId: record.id };
  keyHash = record.hash as string;
  errors = [];
  tracker = new RequestTracker();
  keeper = new ReservationKeeper(store.billing, tracker, TTL_MS, store.clock.now, (error) =>
    errors.push(error),
  );
});
afterEach(() => {
  keeper.stop();
  store.close();
});

/** A running request of `accountId` holding `reservationId`, as the forwarder tracks it. */
function track(reservationId: string, accountId: string): GatewayRequest {
  const tracked = new GatewayRequest(reservationId, "POST", "/v1/chat/completions", 0);
  tracker.begin(tracked);
  Object.assign(tracked, {
    reservationId,
    ref: { accountId, keyId: ref.keyId },
    reservedAt: store.clock.now(),
    exchange: { abortForShutdown() {} },
  });
  return tracked;
}

/** Reserves `amount` for TTL_MS from now, as the gateway does before forwarding. */
async function reserve(amount: number): Promise<string> {
  const now = store.clock.now();
  const reservationId = randomUUID();
  const result = await store.billing.reserve(ref, {
    tokens: 0,
    keyHash: keyHash,
    reservationId,
    amount,
    now,
    periods: store.calendar.at(now),
    expiresAt: now + TTL_MS,
    model: { kind: "none" },
  });
  expect(result.ok).toBe(true);
  return reservationId;
}

function expiry(reservationId: string): Promise<string | null> {
  return store.redis.zscore(store.redisKeys.reservations("acme"), reservationId);
}

describe("ReservationKeeper", () => {
  it("extends a tracked long request's reservation past its original expiry, and not an untracked one", async () => {
    const start = store.clock.now();
    const longRequest = await reserve(7);
    const orphan = await reserve(5); // its replica died: nobody tracks it
    track(longRequest, "acme");

    // Every third of the TTL the keeper runs; it extends what is tracked and older than that.
    for (let tick = 1; tick <= 6; tick++) {
      store.clock.advance(TTL_MS / 3);
      await keeper.extendDue();
      expect(Number(await expiry(longRequest))).toBe(store.clock.now() + TTL_MS);
    }
    expect(Number(await expiry(orphan))).toBe(start + TTL_MS);
    expect(errors).toEqual([]);

    // Two TTLs after both began, only the orphan has expired: the next reservation releases it alone.
    expect(store.clock.now()).toBe(start + 2 * TTL_MS);
    const now = store.clock.now();
    expect(
      await store.billing.reserve(ref, {
        tokens: 0,
        keyHash: keyHash,
        reservationId: randomUUID(),
        amount: 0,
        now,
        periods: store.calendar.at(now),
        expiresAt: now + TTL_MS,
        model: { kind: "none" },
      }),
    ).toMatchObject({ ok: true, expired: 1, accountReserved: 7 });
    expect(await store.redis.hget(store.redisKeys.reservationRecords("acme"), orphan)).toBe("expired");
    expect(await store.redis.hget(store.redisKeys.reservationRecords("acme"), longRequest)).toBe(
      `${ref.keyId} 7 -`,
    );
  });

  it("leaves a request alone while it is young, and stops extending it once it has ended", async () => {
    const start = store.clock.now();
    const request = await reserve(3);
    const tracked = track(request, "acme");

    store.clock.advance(TTL_MS / 3 - 1);
    await keeper.extendDue();
    expect(Number(await expiry(request))).toBe(start + TTL_MS); // most of its TTL is still left

    store.clock.advance(1);
    await keeper.extendDue();
    const extendedTo = store.clock.now() + TTL_MS;
    expect(Number(await expiry(request))).toBe(extendedTo);

    tracker.end(tracked);
    store.clock.advance(TTL_MS / 3);
    await keeper.extendDue();
    expect(Number(await expiry(request))).toBe(extendedTo);
  });

  it("reports a failed extension instead of throwing, and still extends the other accounts' requests", async () => {
    const request = await reserve(3);
    track(request, "acme");
    // Another account's extension fails: a key of the wrong type makes its script fail.
    await store.redis.set(store.redisKeys.reservations("other"), "not a sorted set");
    track("r-other", "other");
    store.clock.advance(TTL_MS / 3);
    await keeper.extendDue();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/WRONGTYPE/);
    expect(Number(await expiry(request))).toBe(store.clock.now() + TTL_MS);
  });

  it("runs every third of the TTL, and at most every 2^31 - 1 ms however long the TTL (never a busy loop)", () => {
    // Node sets a delay above 2^31 - 1 ms to 1 ms: a five-year TTL would have run the keeper every millisecond.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const runs = { short: 0, long: 0 };
    const counting = (which: keyof typeof runs) => ({
      reservations: () => {
        runs[which]++;
        return [];
      },
    });
    const keepers = [
      new ReservationKeeper(store.billing, counting("short"), 60_000, store.clock.now, () => {}),
      new ReservationKeeper(store.billing, counting("long"), 5 * 365 * 86_400_000, store.clock.now, () => {}),
    ];
    try {
      for (const k of keepers) k.start();
      vi.advanceTimersByTime(20_000);
      expect(runs).toEqual({ short: 1, long: 0 });
      keepers[0]?.stop();
      vi.advanceTimersByTime(MAX_TIMER_MS - 20_000);
      expect(runs.long).toBe(1);
    } finally {
      for (const k of keepers) k.stop();
      vi.useRealTimers();
    }
  });
});
