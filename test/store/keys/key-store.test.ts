// Changing a key's period while it is being charged: the new period's spent amount is summed from the daily
// usage and then written, and a settlement landing in between must not be lost.

import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KeyRef } from "../../../src/core/key-ref.js";
import { parseRubles } from "../../../src/core/money.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const rub = (text: string) => parseRubles(text, "test amount");

let store: TestStore;
let ref: KeyRef;
let keyHash: string;

beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  const { record } = await store.keyService.create(
    { accountId: "acme", name: "k", budget: "50", period: "month" },
    ACTOR,
  );
  ref = { accountId: "acme", keyId: record.id };
  keyHash = record.hash as string;
});
afterEach(() => store.close());

/** One request reserved and settled at the clock's time. */
async function charge(amount: number): Promise<void> {
  const now = store.clock.now();
  const reservationId = randomUUID();
  const periods = store.calendar.at(now);
  await store.billing.reserve(ref, {
    tokens: 0,
    keyHash: keyHash,
    reservationId,
    amount,
    now,
    periods,
    expiresAt: now + 60_000,
    model: { kind: "none" },
  });
  const settled = await store.billing.settle({
    ref,
    reservationId,
    logEntry: "{}",
    logEntryWithBodies: "",
    model: null,
    cost: amount,
    promptTokens: 1,
    completionTokens: 1,
    failed: false,
    estimated: false,
    latencyMs: 10,
    periods,
    day: store.calendar.dayOf(now),
    now,
  });
  expect(settled.duplicate).toBe(false);
}

/** Settles `amount` right after each read of the key's spending, as a request finishing at that moment would. */
function chargeAfterEachRead(amount: number, times: number): { reads: () => number } {
  const read = store.keys.periodSpending.bind(store.keys);
  let reads = 0;
  store.keys.periodSpending = async (key, days) => {
    const spending = await read(key, days);
    reads++;
    if (reads <= times) await charge(amount);
    return spending;
  };
  return { reads: () => reads };
}

describe("a period change", () => {
  it("carries over the new period's spending, including a settlement that lands while it is computed", async () => {
    store.clock.set("2026-11-10T10:00:00.000Z"); // the week before
    await charge(rub("1"));
    store.clock.set("2026-11-21T10:00:00.000Z"); // Saturday
    await charge(rub("2"));
    const race = chargeAfterEachRead(rub("4"), 1);

    const key = await store.keyService.update(ref.keyId, { period: "week" }, ACTOR);

    expect(race.reads()).toBe(2); // the first write was refused, and the sum read again
    expect(key).toMatchObject({
      period: "week",
      spent: rub("6"),
      periodStart: Date.parse("2026-11-16T00:00:00Z"),
    });
    expect((await store.accounts.require("acme")).balance).toBe(rub("93"));
    const audit = await store.redis.lrange(store.redisKeys.audit("acme"), 0, -1);
    expect(audit.filter((entry) => entry.includes('"key.update"'))).toHaveLength(1);
  });

  it("gives up with 503 on a key charged during every attempt, and changes nothing", async () => {
    store.clock.set("2026-11-21T10:00:00.000Z");
    await charge(rub("2"));
    const race = chargeAfterEachRead(rub("1"), Number.POSITIVE_INFINITY);

    await expect(
      store.keyService.update(ref.keyId, { period: "day", name: "renamed" }, ACTOR),
    ).rejects.toMatchObject({
      code: "service_unavailable",
      message: expect.stringMatching(/charged during each of 5 attempts/),
    });

    expect(race.reads()).toBe(5);
    expect(await store.keys.get(ref)).toMatchObject({ name: "k", period: "month", spent: rub("7") });
  });
});

describe("updateKey", () => {
  it("refuses a period change computed from a spent amount or period start that has moved, and writes nothing", async () => {
    store.clock.set("2026-11-21T10:00:00.000Z");
    await charge(rub("2"));
    const days = ["2026-11-21"];
    const before = await store.keys.periodSpending(ref, days);
    expect(before).toEqual({
      dayCosts: [rub("2")],
      read: { spent: String(rub("2")), periodStart: String(Date.parse("2026-11-01T00:00:00Z")) },
      cost: rub("2"),
    });
    const changes = {
      name: "renamed",
      period: "day",
      period_start: String(Date.parse("2026-11-21T00:00:00Z")),
      spent: String(before.cost),
    };

    await charge(rub("3"));
    expect(await store.keys.update(ref, changes, "{}", before.read)).toBe("conflict");
    expect(await store.keys.get(ref)).toMatchObject({ name: "k", period: "month", spent: rub("5") });

    // A roll-over into a new period moves the period start: that too is refused.
    const rolled = await store.keys.periodSpending(ref, days);
    await store.redis.hset(
      store.redisKeys.key("acme", ref.keyId),
      "spent",
      rolled.read.spent,
      "period_start",
      "1",
    );
    expect(await store.keys.update(ref, changes, "{}", rolled.read)).toBe("conflict");

    const current = await store.keys.periodSpending(ref, days);
    expect(current.cost).toBe(rub("5"));
    expect(
      await store.keys.update(ref, { ...changes, spent: String(current.cost) }, "{}", current.read),
    ).toBe("ok");
    expect(await store.keys.get(ref)).toMatchObject({ name: "renamed", period: "day", spent: rub("5") });
  });

  it("applies other changes without looking at the spent amount", async () => {
    await charge(rub("2"));
    expect(await store.keys.update(ref, { name: "renamed", budget: String(rub("20")) }, "{}")).toBe("ok");
    expect(await store.keys.get(ref)).toMatchObject({ name: "renamed", budget: rub("20"), spent: rub("2") });
  });
});
