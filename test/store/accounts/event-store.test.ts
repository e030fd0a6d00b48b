// The alert events' Redis side against a real Redis: each event emitted by the script that causes it, once;
// time-based events fired from the due set exactly once; events handed to one worker at a time under a lease.

import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import type { KeyRef } from "../../../src/core/key-ref.js";
import { parseRubles } from "../../../src/core/money.js";
import {
  DEFAULT_EVENT_SETTINGS,
  EventStore,
  eventId,
  type StoredEvent,
} from "../../../src/store/accounts/event-store.js";
import type { Settlement } from "../../../src/store/billing/settle-script.js";
import { connectRedis, createRedis } from "../../../src/store/connection/redis.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const rub = (text: string) => parseRubles(text, "test amount");
const DAY = 86_400_000;

let store: TestStore;

beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

async function account(balance = "100", id = "acme"): Promise<void> {
  await store.accountService.create({ id, balance }, ACTOR);
}

async function key(options: { budget?: string; period?: string; ttl?: string; alertAt?: unknown } = {}) {
  const { record } = await store.keyService.create(
    {
      accountId: "acme",
      name: "k",
      budget: options.budget,
      period: options.period,
      ttl: options.ttl,
      alertAt: options.alertAt,
    },
    ACTOR,
  );
  return { ref: { accountId: record.accountId, keyId: record.id } satisfies KeyRef, record };
}

/** Reserves and settles one request of `cost` rubles; returns how many events its settlement emitted. */
async function charge(ref: KeyRef, cost: string): Promise<number> {
  const now = store.clock.now();
  const reservationId = randomUUID();
  const amount = rub(cost);
  const key = await store.keys.get(ref);
  const reserved = await store.billing.reserve(ref, {
    reservationId,
    amount: 0,
    tokens: 0,
    keyHash: key?.hash ?? "",
    now,
    periods: store.calendar.at(now),
    expiresAt: now + 60_000,
    model: { kind: "none" },
  });
  expect(reserved.ok).toBe(true);
  const input: Omit<Settlement, "ref"> = {
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
    periods: store.calendar.at(now),
    day: store.calendar.dayOf(now),
    now,
  };
  return (await store.billing.settle({ ...input, ref })).events ?? -1;
}

/** The account's events, oldest first. */
async function events(accountId = "acme"): Promise<StoredEvent[]> {
  return (await store.stores.events.recent(accountId, 100)).map((listed) => listed.event).reverse();
}

const types = async () => (await events()).map((event) => event.type);

describe("key events", () => {
  it("emits key.created with the key's settings, from the script that creates it", async () => {
    await account();
    const { ref, record } = await key({ budget: "10", period: "day", ttl: "30d" });
    const [created] = await events();
    expect(created).toMatchObject({
      type: "key.created",
      keyId: ref.keyId,
      at: store.clock.now(),
      fields: {
        name: "k",
        budget: String(rub("10")),
        period: "day",
        expires_at: String(record.expiresAt),
      },
    });
    expect(created?.id).toBe(eventId(store.prefix, "acme", created?.streamId as string));
    expect(created?.id).toMatch(/^evt_[0-9a-f]{24}$/);
  });

  it("emits key.revoked once, however often the key is revoked", async () => {
    await account();
    const { ref } = await key();
    await store.keyService.revoke(ref.keyId, ACTOR);
    await store.keyService.revoke(ref.keyId, ACTOR);
    expect(await types()).toEqual(["key.created", "key.revoked"]);
    expect((await events())[1]?.fields).toEqual({ name: "k", revoked_at: String(store.clock.now()) });
  });

  it("marks the account for the delivery workers", async () => {
    await account();
    await key();
    expect(await store.stores.events.accountsWithWork(store.clock.now(), 10)).toEqual(["acme"]);
  });
});

describe("budget.threshold", () => {
  it("is emitted by the settlement that takes spent to 80 %, with the figures in µ₽, and once", async () => {
    await account();
    const { ref } = await key({ budget: "10" });
    expect(await charge(ref, "7.99")).toBe(0);
    expect(await charge(ref, "0.01")).toBe(1);
    expect(await charge(ref, "0.5")).toBe(0);
    const threshold = (await events()).filter((event) => event.type === "budget.threshold");
    expect(threshold).toHaveLength(1);
    expect(threshold[0]).toMatchObject({
      keyId: ref.keyId,
      fields: {
        name: "k",
        threshold: "80",
        budget: String(rub("10")),
        spent: String(rub("8")),
        period: "month",
        period_start: String(store.calendar.at(store.clock.now()).month.start),
      },
    });
  });

  it("announces every threshold one charge passes, in ascending order", async () => {
    await account();
    const { ref } = await key({ budget: "10" });
    expect(await charge(ref, "10")).toBe(3);
    const thresholds = (await events()).filter((e) => e.type === "budget.threshold");
    expect(thresholds.map((e) => e.fields.threshold)).toEqual(["80", "95", "100"]);
  });

  it("re-arms in the next period", async () => {
    store.clock.set("2026-11-21T10:00:00.000Z");
    await account();
    const { ref } = await key({ budget: "10", period: "day" });
    expect(await charge(ref, "8")).toBe(1);
    expect(await charge(ref, "0.1")).toBe(0);
    store.clock.set("2026-11-22T00:00:00.000Z");
    expect(await charge(ref, "7")).toBe(0);
    expect(await charge(ref, "1")).toBe(1);
    const thresholds = (await events()).filter((e) => e.type === "budget.threshold");
    expect(thresholds.map((e) => e.fields.period_start)).toEqual([
      String(Date.parse("2026-11-21T00:00:00Z")),
      String(Date.parse("2026-11-22T00:00:00Z")),
    ]);
  });

  it("follows a key's own thresholds, and none with alerts off", async () => {
    await account();
    const own = await key({ budget: "10", alertAt: [50] });
    const off = await key({ budget: "10", alertAt: [] });
    expect(await charge(own.ref, "9")).toBe(1);
    expect(await charge(off.ref, "10")).toBe(0);
    const thresholds = (await events()).filter((e) => e.type === "budget.threshold");
    expect(thresholds.map((e) => [e.keyId, e.fields.threshold])).toEqual([[own.ref.keyId, "50"]]);
  });

  it("re-arms for a new budget, and announces at the next charge a threshold a lowered budget has passed", async () => {
    await account();
    const { ref } = await key({ budget: "10" });
    expect(await charge(ref, "5")).toBe(0);
    await store.keyService.update(ref.keyId, { budget: "6" }, ACTOR);
    expect(await charge(ref, "0.000001")).toBe(1);
    await store.keyService.update(ref.keyId, { budget: "100" }, ACTOR);
    expect(await charge(ref, "1")).toBe(0);
    const thresholds = (await events()).filter((e) => e.type === "budget.threshold");
    expect(thresholds.map((e) => [e.fields.budget, e.fields.threshold])).toEqual([[String(rub("6")), "80"]]);
  });

  it("computes the threshold exactly for the largest budget", async () => {
    await account("999999999.999999");
    const { ref } = await key({ budget: "999999999.999999", alertAt: [80] });
    // 80 % of 999 999 999 999 999 µ₽ is 799 999 999 999 999.2 µ₽: reached at 799 999 999 999 999.2, so not at
    // 799 999 999.999999 ₽ and at one micro-ruble more.
    expect(await charge(ref, "799999999.999999")).toBe(0);
    expect(await charge(ref, "0.000001")).toBe(1);
    const [threshold] = (await events()).filter((e) => e.type === "budget.threshold");
    expect(threshold?.fields.spent).toBe("800000000000000");
    expect(threshold?.fields.budget).toBe("999999999999999");
  });

  it("is not emitted for a key without a budget", async () => {
    await account();
    const { ref } = await key();
    expect(await charge(ref, "90")).toBe(0);
  });
});

describe("balance.low and balance.exhausted", () => {
  it("announce a balance below the mark and at zero once each, re-armed only by a top-up above them", async () => {
    await account("10");
    await store.stores.alertSettings.setLowBalance("acme", rub("5"), "{}");
    const { ref } = await key();
    expect(await charge(ref, "4")).toBe(0);
    expect(await charge(ref, "1.5")).toBe(1);
    expect(await charge(ref, "1")).toBe(0);
    expect(await charge(ref, "4")).toBe(1);
    expect((await events()).filter((e) => e.type.startsWith("balance.")).map((e) => e.fields)).toEqual([
      { balance: String(rub("4.5")), low_balance: String(rub("5")) },
      { balance: "-500000" },
    ]);

    // A top-up that leaves the balance at zero or below re-arms nothing; one that lifts it above zero
    // re-arms balance.exhausted; to the mark, balance.low too.
    await store.accountService.topUp("acme", "0.5", ACTOR);
    await store.accountService.topUp("acme", "0.5", ACTOR);
    expect(await charge(ref, "2")).toBe(1);
    await store.accountService.topUp("acme", "6", ACTOR);
    expect(await charge(ref, "0.5")).toBe(0);
    await store.accountService.topUp("acme", "1", ACTOR);
    expect(await charge(ref, "3")).toBe(1);
    expect((await types()).filter((type) => type.startsWith("balance."))).toEqual([
      "balance.low",
      "balance.exhausted",
      "balance.exhausted",
      "balance.low",
    ]);
  });

  it("announce both when one charge takes the balance from above the mark to zero", async () => {
    await account("10");
    await store.stores.alertSettings.setLowBalance("acme", rub("5"), "{}");
    const { ref } = await key();
    expect(await charge(ref, "10")).toBe(2);
    expect((await types()).slice(1)).toEqual(["balance.low", "balance.exhausted"]);
  });

  it("without a mark, only balance.exhausted", async () => {
    await account("1");
    const { ref } = await key();
    expect(await charge(ref, "0.9")).toBe(0);
    expect(await charge(ref, "0.1")).toBe(1);
    expect(await types()).toEqual(["key.created", "balance.exhausted"]);
  });
});

describe("time-based key events", () => {
  it("fire 7 days and 1 day before expiry and at it, each once, even from two replicas at the same time", async () => {
    await account();
    const { ref, record } = await key({ ttl: "10d" });
    const expiresAt = record.expiresAt as number;
    // A second replica: a connection of its own, as another gateway process would have.
    const other = createRedis({ url: inject("redisUrl") }, "gateway");
    await connectRedis(other, { url: inject("redisUrl") });
    const replica = new EventStore(other, store.redisKeys, DEFAULT_EVENT_SETTINGS, store.clock.now);
    try {
      const both = () =>
        Promise.all([
          store.stores.events.fireDue("acme", store.clock.now()),
          replica.fireDue("acme", store.clock.now()),
        ]).then(([a, b]) => a + b);
      expect(await both()).toBe(0);
      store.clock.ms = expiresAt - 7 * DAY;
      expect(await both()).toBe(1);
      expect(await both()).toBe(0);
      store.clock.ms = expiresAt - DAY - 1;
      expect(await both()).toBe(0);
      store.clock.ms = expiresAt;
      expect(await both()).toBe(2);
    } finally {
      other.disconnect();
    }
    const timed = (await events()).filter((e) => e.type !== "key.created");
    expect(timed.map((e) => [e.type, e.keyId, e.fields.days])).toEqual([
      ["key.expiring", ref.keyId, "7"],
      ["key.expiring", ref.keyId, "1"],
      ["key.expired", ref.keyId, undefined],
    ]);
    expect(timed.every((e) => e.fields.expires_at === String(expiresAt))).toBe(true);
  });

  it("skip warnings already past when the key is made, and follow a changed expiry", async () => {
    await account();
    const { ref } = await key({ ttl: "3d" });
    const due = store.redisKeys.eventsDue("acme");
    expect((await store.redis.zrange(due, "0", "-1")).map((m) => m.split(" ")[1])).toEqual([
      "expiring_1d",
      "expired",
    ]);
    await store.keyService.update(ref.keyId, { ttl: "30d" }, ACTOR);
    const expiresAt = (await store.keys.get(ref))?.expiresAt as number;
    expect(await store.redis.zrange(due, "0", "-1")).toEqual([
      `${ref.keyId} expiring_7d ${expiresAt}`,
      `${ref.keyId} expiring_1d ${expiresAt}`,
      `${ref.keyId} expired ${expiresAt}`,
    ]);
    await store.keyService.update(ref.keyId, { ttl: "never" }, ACTOR);
    expect(await store.redis.zcard(due)).toBe(0);
  });

  it("are dropped for a key revoked before they are due", async () => {
    await account();
    const { ref } = await key({ ttl: "2d" });
    await store.keyService.revoke(ref.keyId, ACTOR);
    store.clock.advance(3 * DAY);
    expect(await store.stores.events.fireDue("acme", store.clock.now())).toBe(0);
    expect(await store.redis.zcard(store.redisKeys.eventsDue("acme"))).toBe(0);
    expect(await types()).toEqual(["key.created", "key.revoked"]);
  });
});

describe("handing events to delivery workers", () => {
  const LEASE = 30_000;

  it("gives each new event to one worker, under a lease nobody else can take before it ends", async () => {
    await account();
    await key();
    await key();
    const eventStore = store.stores.events;
    const now = store.clock.now();
    const [first, second] = await Promise.all([
      eventStore.claim("acme", "a", now, LEASE, 1),
      eventStore.claim("acme", "b", now, LEASE, 10),
    ]);
    expect([...(first ?? []), ...(second ?? [])].map((c) => c.isNew)).toEqual([true, true]);
    expect(new Set([...(first ?? []), ...(second ?? [])].map((c) => c.event.streamId)).size).toBe(2);
    expect(await eventStore.claim("acme", "c", now + LEASE - 1, LEASE, 10)).toEqual([]);

    // The lease runs out (the worker died): another worker is handed the event again, not as new.
    const retaken = await eventStore.claim("acme", "c", now + LEASE, LEASE, 10);
    expect(retaken.map((c) => c.isNew)).toEqual([false, false]);
    // The first worker comes back too late: its record changes nothing.
    const late = first?.[0] ?? second?.[0];
    expect(await eventStore.finish("acme", late as (typeof retaken)[0], "{}", null)).toBe("lease_lost");
  });

  it("puts an event back for its retry, and acknowledges it when done", async () => {
    await account();
    await key();
    const eventStore = store.stores.events;
    const now = store.clock.now();
    const [claimed] = await eventStore.claim("acme", "a", now, LEASE, 10);
    expect(await eventStore.oldestUndeliveredAt("acme")).toBe(now);
    expect(
      await eventStore.finish("acme", claimed as NonNullable<typeof claimed>, '{"n":1}', now + 60_000),
    ).toBe("retry");
    expect(await eventStore.nextWorkAt("acme", now)).toBe(now + 60_000);
    expect(await eventStore.claim("acme", "b", now + 59_999, LEASE, 10)).toEqual([]);
    const [again] = await eventStore.claim("acme", "b", now + 60_000, LEASE, 10);
    expect(again?.event.streamId).toBe(claimed?.event.streamId);
    expect(await eventStore.deliveryStates("acme", [again?.event.streamId as string])).toEqual(['{"n":1}']);
    expect(await eventStore.finish("acme", again as NonNullable<typeof again>, '{"n":2}', null)).toBe("done");
    expect(await eventStore.oldestUndeliveredAt("acme")).toBeNull();
    expect(await eventStore.nextWorkAt("acme", now)).toBeNull();
    expect(await store.redis.xpending(store.redisKeys.events("acme"), "delivery")).toEqual([
      0,
      null,
      null,
      null,
    ]);
  });

  it("says when an account next has work: events not handed out, retries, time-based events", async () => {
    await account();
    const eventStore = store.stores.events;
    const now = store.clock.now();
    expect(await eventStore.nextWorkAt("acme", now)).toBeNull();
    expect(await eventStore.oldestUndeliveredAt("acme")).toBeNull();
    const { record } = await key({ ttl: "1d" });
    expect(await eventStore.nextWorkAt("acme", now)).toBe(now);
    expect(await eventStore.oldestUndeliveredAt("acme")).toBe(now);
    const [claimed] = await eventStore.claim("acme", "a", now, LEASE, 10);
    await eventStore.finish("acme", claimed as NonNullable<typeof claimed>, "{}", null);
    expect(await eventStore.nextWorkAt("acme", now)).toBe(record.expiresAt);
  });
});
