// A key's limits as the reserve and settle scripts enforce them, on the suite's Redis with the clock moved by
// hand: requests and tokens per minute by GCRA (exact in integers, checked against a model in BigInt), the
// tokens-per-minute correction at settlement, and requests in flight against max_parallel, freed by
// settlement and by the expiry of a reservation whose replica died. A refusal counts nothing.

import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KeyRef } from "../../../src/core/key-ref.js";
import type { Refusal, Reservation, ReserveInput } from "../../../src/store/billing/reserve-script.js";
import { ACTOR } from "../../helpers/actor.js";
import { reservationAt, settlementAt } from "../../helpers/billing-scripts.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const MINUTE = 60_000;

let store: TestStore;

beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "1000" }, ACTOR);
});
afterEach(() => store.close());

interface Limited {
  ref: KeyRef;
  hash: string;
}

async function key(limits: {
  rpm?: number;
  tpm?: number;
  maxParallel?: number;
  budget?: string;
}): Promise<Limited> {
  const { record } = await store.keyService.create({ accountId: "acme", name: "limited", ...limits }, ACTOR);
  return { ref: { accountId: "acme", keyId: record.id }, hash: record.hash as string };
}

function reserve(k: Limited, options: Partial<ReserveInput> = {}): Promise<Reservation | Refusal> {
  return store.billing.reserve(k.ref, { tokens: 0, keyHash: k.hash, ...reservationAt(store, 1000, options) });
}

async function admitted(
  k: Limited,
  options: Partial<ReserveInput> = {},
): Promise<Reservation & { id: string }> {
  const reservationId = options.reservationId ?? randomUUID();
  const reply = await reserve(k, { ...options, reservationId });
  if (!reply.ok) throw new Error(`refused: ${JSON.stringify(reply)}`);
  return { ...reply, id: reservationId };
}

function settle(k: Limited, reservationId: string, used: { prompt: number; completion: number }) {
  const input = settlementAt(store, reservationId, 500, {
    promptTokens: used.prompt,
    completionTokens: used.completion,
    latencyMs: 1,
  });
  return store.billing.settle({ ...input, ref: k.ref });
}

/** What the refused calls must not have touched: reservations, what they hold, and the limits' state. */
async function snapshot(k: Limited) {
  const keys = store.redisKeys;
  const [record, reservations, held] = await Promise.all([
    store.redis.hmget(keys.key("acme", k.ref.keyId), "rpm_tat", "tpm_tat", "spent"),
    store.redis.zrange(keys.reservations("acme"), "0", "-1"),
    store.redis.hgetall(keys.reserved("acme")),
  ]);
  return { record, reservations, held };
}

describe("requests per minute", () => {
  it("admits exactly the limit at once, refuses the next with the wait, and frees one per interval", async () => {
    const k = await key({ rpm: 10 });
    for (let i = 0; i < 10; i++) {
      const reply = await admitted(k);
      expect(reply.rpm).toEqual({ limit: 10, remaining: 9 - i, resetMs: 6000 * (i + 1) });
    }
    const before = await snapshot(k);
    expect(await reserve(k)).toEqual({
      ok: false,
      expired: 0,
      code: "rate_limit_exceeded",
      limit: { kind: "rpm", value: 10, waitMs: 6000 },
    });
    expect(await snapshot(k)).toEqual(before);

    store.clock.advance(5999);
    expect(await reserve(k)).toMatchObject({ code: "rate_limit_exceeded", limit: { waitMs: 1 } });
    store.clock.advance(1);
    expect((await admitted(k)).rpm).toEqual({ limit: 10, remaining: 0, resetMs: MINUTE });
    expect(await reserve(k)).toMatchObject({ code: "rate_limit_exceeded", limit: { waitMs: 6000 } });

    // A whole minute later the whole allowance is back, and not more.
    store.clock.advance(MINUTE);
    for (let i = 0; i < 10; i++) await admitted(k);
    expect(await reserve(k)).toMatchObject({ code: "rate_limit_exceeded" });
  });

  it("is exact for a limit that does not divide a minute: 7 a minute admits 7, then one each 8 571.43 ms", async () => {
    const k = await key({ rpm: 7 });
    for (let i = 0; i < 7; i++) await admitted(k);
    expect(await reserve(k)).toMatchObject({ limit: { kind: "rpm", value: 7, waitMs: 8572 } });
    store.clock.advance(8571);
    expect(await reserve(k)).toMatchObject({ code: "rate_limit_exceeded", limit: { waitMs: 1 } });
    store.clock.advance(1);
    await admitted(k);
    // A minute after the burst, the request admitted since still holds its interval: six more fit, not seven.
    store.clock.advance(MINUTE - 8572);
    for (let i = 0; i < 6; i++) await admitted(k);
    expect(await reserve(k)).toMatchObject({ code: "rate_limit_exceeded" });
  });

  it("counts only admitted requests: a request refused by the budget takes nothing from the allowance", async () => {
    const k = await key({ rpm: 2, budget: "0.001" });
    expect(await reserve(k, { amount: 2000 })).toMatchObject({ code: "budget_exceeded" });
    expect(await reserve(k, { amount: 2000 })).toMatchObject({ code: "budget_exceeded" });
    expect((await admitted(k, { amount: 100 })).rpm?.remaining).toBe(1);
  });

  it("agrees with a model of GCRA in exact integers over any run of requests and clock moves", async () => {
    const k = await key({ rpm: 1 });
    const tat = store.redisKeys.key("acme", k.ref.keyId);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: 1, maxLength: 60 }),
        async (limit, moves) => {
          // A fresh allowance for each run: a changed limit starts afresh.
          await store.keyService.update(k.ref.keyId, { rpm: limit }, ACTOR);
          // The model keeps the TAT absolutely, in units of 1/limit ms, as a BigInt.
          let modelTat = 0n;
          const scale = BigInt(limit);
          for (const move of moves) {
            store.clock.advance(move);
            const now = BigInt(store.clock.now()) * scale;
            const next = (modelTat > now ? modelTat : now) + BigInt(MINUTE);
            const fits = next - now <= BigInt(MINUTE) * scale;
            const reply = await reserve(k, { amount: 0 });
            expect(reply.ok).toBe(fits);
            if (fits) {
              modelTat = next;
              const remaining = (BigInt(MINUTE) * scale - (next - now)) / BigInt(MINUTE);
              expect((reply as Reservation).rpm?.remaining).toBe(Number(remaining));
            } else {
              const over = next - now - BigInt(MINUTE) * scale;
              expect((reply as Refusal).limit?.waitMs).toBe(Number((over + scale - 1n) / scale));
            }
          }
          await store.redis.hdel(tat, "rpm_tat");
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("tokens per minute", () => {
  it("counts the worst case at admission and gives back what the request did not use when it settles", async () => {
    const k = await key({ tpm: 1000 });
    const first = await admitted(k, { tokens: 600 });
    expect(first.tpm).toEqual({ limit: 1000, remaining: 400, resetMs: 36_000 });
    expect(await reserve(k, { tokens: 600 })).toMatchObject({
      code: "rate_limit_exceeded",
      limit: { kind: "tpm", value: 1000, waitMs: 12_000 },
    });
    // It used 100 of its 600: 500 come back, and the next 600 fit at once.
    await settle(k, first.id, { prompt: 40, completion: 60 });
    expect((await admitted(k, { tokens: 600 })).tpm?.remaining).toBe(300);
  });

  it("takes what a request used beyond its worst case, so the key waits for it", async () => {
    const k = await key({ tpm: 1000 });
    const first = await admitted(k, { tokens: 100 });
    await settle(k, first.id, { prompt: 100, completion: 1900 });
    // 2 000 used against 1 000 a minute: the allowance is whole again in two minutes.
    expect(await reserve(k, { tokens: 1 })).toMatchObject({ limit: { kind: "tpm", waitMs: 60_060 } });
  });

  it("admits a worst case above the whole allowance once all of it is free, counted as the allowance", async () => {
    const k = await key({ tpm: 1000 });
    const small = await admitted(k, { tokens: 1 });
    expect(await reserve(k, { tokens: 5000 })).toMatchObject({ limit: { kind: "tpm", waitMs: 60 } });
    store.clock.advance(60);
    const big = await admitted(k, { tokens: 5000 });
    expect(big.tpm).toEqual({ limit: 1000, remaining: 0, resetMs: MINUTE });
    await settle(k, small.id, { prompt: 1, completion: 0 });
    // It really used 3 000: two minutes more on top of the one it was counted as.
    await settle(k, big.id, { prompt: 1000, completion: 2000 });
    expect(await reserve(k, { tokens: 10 })).toMatchObject({ limit: { waitMs: 120_600 } });
  });

  it("leaves a settlement's correction out once the limit has changed: the new allowance starts afresh", async () => {
    const k = await key({ tpm: 1000 });
    const early = await admitted(k, { tokens: 900 });
    await store.keyService.update(k.ref.keyId, { tpm: 2000 }, ACTOR);
    const later = await admitted(k, { tokens: 1500 });
    expect(later.tpm?.remaining).toBe(500);
    // The early request's 890 unused tokens were counted against the old limit: nothing of them comes back.
    await settle(k, early.id, { prompt: 5, completion: 5 });
    expect((await admitted(k, { tokens: 500 })).tpm?.remaining).toBe(0);
  });
});

describe("requests in flight", () => {
  it("admits max_parallel at once, refuses the next, and frees a slot when one settles", async () => {
    const k = await key({ maxParallel: 3 });
    const running = [];
    for (let i = 1; i <= 3; i++) {
      const reply = await admitted(k, { amount: i === 2 ? 0 : 1000 });
      expect(reply).toMatchObject({ maxParallel: 3, inFlight: i });
      running.push(reply.id);
    }
    const before = await snapshot(k);
    expect(await reserve(k)).toEqual({
      ok: false,
      expired: 0,
      code: "concurrency_limit_exceeded",
      maxParallel: 3,
      inFlight: 3,
    });
    expect(await snapshot(k)).toEqual(before);
    await settle(k, running[1] as string, { prompt: 1, completion: 1 });
    expect(await admitted(k)).toMatchObject({ inFlight: 3 });
    expect(await store.billing.inFlight("acme")).toEqual({ [k.ref.keyId]: 3 });
  });

  it("gives back the slot of a request whose replica died when its reservation expires", async () => {
    const k = await key({ maxParallel: 1 });
    const orphan = await admitted(k, { expiresAt: store.clock.now() + 1000 });
    expect(await reserve(k)).toMatchObject({ code: "concurrency_limit_exceeded" });
    store.clock.advance(1000);
    const next = await admitted(k);
    expect(next).toMatchObject({ expired: 1, inFlight: 1 });
    // The dead replica's request settling late is charged but frees nothing more.
    await settle(k, orphan.id, { prompt: 1, completion: 1 });
    expect(await store.billing.inFlight("acme")).toEqual({ [k.ref.keyId]: 1 });
    await settle(k, next.id, { prompt: 1, completion: 1 });
    expect(await store.billing.inFlight("acme")).toEqual({});
  });

  it("counts the requests of a key without limits too, and leaves nothing behind once they are settled", async () => {
    const k = await key({});
    const a = await admitted(k);
    const b = await admitted(k);
    expect(b).toMatchObject({ rpm: null, tpm: null, maxParallel: null, inFlight: 2 });
    await settle(k, a.id, { prompt: 1, completion: 1 });
    await settle(k, b.id, { prompt: 1, completion: 1 });
    expect(await store.redis.exists(store.redisKeys.reserved("acme"))).toBe(0);
  });

  it("does not count down for a reservation written before limits existed, which never counted up", async () => {
    const k = await key({ maxParallel: 5 });
    const current = await admitted(k);
    const legacy = randomUUID();
    const keys = store.redisKeys;
    await store.redis.zadd(keys.reservations("acme"), store.clock.now() + MINUTE, legacy);
    await store.redis.hset(keys.reservationRecords("acme"), legacy, `${k.ref.keyId} 0`);
    await settle(k, legacy, { prompt: 1, completion: 1 });
    expect(await store.billing.inFlight("acme")).toEqual({ [k.ref.keyId]: 1 });
    await settle(k, current.id, { prompt: 1, completion: 1 });
    expect(await store.billing.inFlight("acme")).toEqual({});
  });
});
