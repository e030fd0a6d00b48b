// Budget windows in the money scripts against a real Redis: reserve refuses by every window of the key and of
// its account and names the one that refused; settle charges each window exactly once; lease is capped by
// the tightest; a budgeted account needs no balance and is not charged one; windows roll over on their own
// calendar (the day rolls while the month stays; the month on the 1st in the billing time zone); keys stored
// before windows read and work as keys with one; new windows start from what their period already cost.

import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { KeyRef } from "../../../src/core/key-ref.js";
import { parseRubles } from "../../../src/core/money.js";
import { BudgetService } from "../../../src/services/budgets.js";
import type { StoredEvent } from "../../../src/store/accounts/event-store.js";
import type { ReserveInput } from "../../../src/store/billing/reserve-script.js";
import type { Settlement } from "../../../src/store/billing/settle-script.js";
import { ACTOR } from "../../helpers/actor.js";
import { reservationAt, settlementAt } from "../../helpers/billing-scripts.js";
import { TestClock } from "../../helpers/clock.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const rub = (text: string) => parseRubles(text, "test amount");

let store: TestStore;
afterEach(() => store.close());

async function open(options: { timezone?: string; at?: string; balance?: string } = {}) {
  store = await openStore({
    clock: new TestClock(Date.parse(options.at ?? "2026-11-21T10:00:00.000Z")),
    ...(options.timezone && { timezone: options.timezone }),
  });
  await store.accountService.create({ id: "acme", name: "Search", balance: options.balance ?? "100" }, ACTOR);
}

const hashes = new Map<string, string>();

async function key(input: { budgets?: string[]; budget?: string; period?: string } = {}) {
  const { record } = await store.keyService.create({ accountId: "acme", name: "k", ...input }, ACTOR);
  hashes.set(record.id, record.hash as string);
  return { accountId: "acme", keyId: record.id } satisfies KeyRef;
}

function accountBudgets(input: { billing?: string; budgets?: string[]; alertAt?: unknown }) {
  return new BudgetService(store.stores).setAccountBudgets("acme", input, ACTOR);
}

function reserve(ref: KeyRef, amount: number, overrides: Partial<ReserveInput> = {}) {
  return store.billing.reserve(ref, {
    tokens: 0,
    keyHash: hashes.get(ref.keyId) ?? "",
    ...reservationAt(store, amount, overrides),
  });
}

function settlement(ref: KeyRef, reservationId: string, cost: number): Settlement {
  return { ...settlementAt(store, reservationId, cost), ref };
}

/** Reserves `amount` and settles it at `cost`; fails the test when the reservation is refused. */
async function charge(ref: KeyRef, amount: number, cost = amount) {
  const reservationId = randomUUID();
  const reserved = await reserve(ref, amount, { reservationId });
  expect(reserved).toMatchObject({ ok: true });
  return store.billing.settle(settlement(ref, reservationId, cost));
}

const spentOf = async (ref: KeyRef) =>
  (await store.keys.get(ref))?.budgets.map((window) => [window.period, window.spent]);
const accountSpent = async () =>
  (await store.accounts.require("acme")).budgets.map((window) => [window.period, window.spent]);

describe("a key's windows", () => {
  it("admits a request only if every window can hold it, and names the window that refused", async () => {
    await open();
    const ref = await key({ budgets: ["1/day", "5/month"] });
    await charge(ref, rub("0.8"));
    expect(await reserve(ref, rub("0.3"))).toMatchObject({
      ok: false,
      code: "budget_exceeded",
      scope: "key",
      period: "day",
      budget: rub("1"),
      spent: rub("0.8"),
    });
    // The next days fill the month until the month refuses what the day would take.
    for (const day of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"]) {
      store.clock.set(`${day}T10:00:00.000Z`);
      await charge(ref, rub("1"));
    }
    store.clock.set("2026-11-26T10:00:00.000Z"); // 4.8 of the month's 5 spent, nothing of the day's 1
    expect(await reserve(ref, rub("0.5"))).toMatchObject({ ok: false, scope: "key", period: "month" });
    expect(await reserve(ref, rub("0.2"))).toMatchObject({ ok: true });
  });

  it("charges every window once, and a settlement retried changes nothing", async () => {
    await open();
    const ref = await key({ budgets: ["10/day", "30/week", "100/month"] });
    const reservationId = randomUUID();
    await reserve(ref, rub("2"), { reservationId });
    const first = await store.billing.settle(settlement(ref, reservationId, rub("1.5")));
    expect(first.windows?.key).toEqual([
      { period: "day", budget: rub("10"), spent: rub("1.5") },
      { period: "week", budget: rub("30"), spent: rub("1.5") },
      { period: "month", budget: rub("100"), spent: rub("1.5") },
    ]);
    expect(await store.billing.settle(settlement(ref, reservationId, rub("1.5")))).toEqual({
      duplicate: true,
    });
    expect(await spentOf(ref)).toEqual([
      ["day", rub("1.5")],
      ["week", rub("1.5")],
      ["month", rub("1.5")],
    ]);
    expect((await store.accounts.require("acme")).balance).toBe(rub("98.5"));
  });

  it("rolls the day over while the month stays, and the month on the 1st in the billing time zone", async () => {
    // 23:30 on 30 November in Moscow (UTC+3) is 20:30 UTC.
    await open({ timezone: "Europe/Moscow", at: "2026-11-29T20:30:00.000Z" });
    const ref = await key({ budgets: ["2/day", "10/month"] });
    await charge(ref, rub("1"));
    store.clock.set("2026-11-30T20:29:59.000Z"); // 23:29:59 on 30 November in Moscow: a new day, the same month
    await charge(ref, rub("2"));
    expect(await spentOf(ref)).toEqual([
      ["day", rub("2")],
      ["month", rub("3")],
    ]);
    expect(await reserve(ref, rub("0.1"))).toMatchObject({ ok: false, period: "day" });
    store.clock.set("2026-11-30T21:00:00.000Z"); // 00:00 on 1 December in Moscow: both start again
    await charge(ref, rub("0.5"));
    expect(await spentOf(ref)).toEqual([
      ["day", rub("0.5")],
      ["month", rub("0.5")],
    ]);
  });

  it("reads a key stored before windows as a key with its one budget, and keeps it working unchanged", async () => {
    await open();
    const ref = await key();
    const hash = store.redisKeys.key("acme", ref.keyId);
    // The stored form of a key with one budget from before windows: no field with a suffix.
    const start = store.calendar.at(store.clock.now()).week.start;
    await store.redis.hset(hash, { budget: rub("3"), period: "week", spent: rub("1"), period_start: start });
    expect(await spentOf(ref)).toEqual([["week", rub("1")]]);
    expect(await reserve(ref, rub("2.5"))).toMatchObject({ ok: false, scope: "key", period: "week" });
    const settled = await charge(ref, rub("1"));
    expect(settled).toMatchObject({ budget: rub("3"), spent: rub("2"), period: "week" });
    expect(await store.redis.hgetall(hash)).not.toHaveProperty("budget_2");
    // Given a second window, it keeps what its week already cost; a new month window starts from the usage.
    await store.keyService.update(ref.keyId, { budgets: ["3/week", "50/month"] }, ACTOR);
    expect(await spentOf(ref)).toEqual([
      ["week", rub("2")],
      ["month", rub("1")],
    ]);
  });
});

describe("an account's windows", () => {
  it("limit the sum of all its keys: more keys get no more", async () => {
    await open();
    await accountBudgets({ budgets: ["5/month"] });
    const keys = await Promise.all([key(), key(), key()]);
    const results = await Promise.all(keys.flatMap((ref) => [1, 2, 3].map(() => reserve(ref, rub("1")))));
    expect(results.filter((result) => result.ok)).toHaveLength(5);
    expect(results.find((result) => !result.ok)).toMatchObject({
      code: "budget_exceeded",
      scope: "account",
      period: "month",
      budget: rub("5"),
      keyReserved: rub("5"),
    });
  });

  it("in the budgeted mode need no balance and charge none; prepaid and both still need one", async () => {
    await open({ balance: "0" });
    await expect(key()).rejects.toMatchObject({ code: "insufficient_balance" });
    await accountBudgets({ billing: "budgeted", budgets: ["10/month"] });
    // Keys may be created while a window is open, without a balance.
    const ref = await key();
    const settled = await charge(ref, rub("4"), rub("3"));
    expect(settled).toMatchObject({
      balance: 0,
      windows: { account: [{ period: "month", spent: rub("3") }] },
    });
    expect(await accountSpent()).toEqual([["month", rub("3")]]);
    expect((await store.accounts.require("acme")).balance).toBe(0);
    await accountBudgets({ billing: "both" });
    expect(await reserve(ref, rub("1"))).toMatchObject({ ok: false, code: "insufficient_balance" });
    await accountBudgets({ billing: "prepaid", budgets: [] });
    expect(await reserve(ref, rub("1"))).toMatchObject({ ok: false, code: "insufficient_balance" });
    expect(await accountSpent()).toEqual([]);
  });

  it("cap a lease by the tightest window, and a budgeted account's lease needs no balance", async () => {
    await open({ balance: "0" });
    await accountBudgets({ billing: "budgeted", budgets: ["8/day", "100/month"] });
    const ref = await key({ budgets: ["50/month"] });
    const now = store.clock.now();
    const grant = await store.billing.lease(ref, {
      leaseId: "lease:r1:a:0",
      amount: rub("30"),
      now,
      periods: store.calendar.at(now),
      expiresAt: now + 60_000,
      share: 2,
      grow: true,
    });
    // Half of the day's 8 RUB, the tightest of the key's 50 and the account's 8 and 100.
    expect(grant).toMatchObject({ state: "ok", amount: rub("4") });
    expect(await reserve(ref, rub("4.5"))).toMatchObject({ ok: false, scope: "account", period: "day" });
  });

  it("start from what the account's keys already spent in their period, and announce their thresholds", async () => {
    await open();
    const a = await key();
    const b = await key();
    await charge(a, rub("3"));
    store.clock.advance(-86_400_000); // yesterday: in the month, not in the day
    await charge(b, rub("2"));
    store.clock.advance(86_400_000);
    const account = await accountBudgets({ budgets: ["10/month", "4/day"], alertAt: [50] });
    expect(account).toMatchObject({ billing: "both", alertAt: [50] });
    expect(await accountSpent()).toEqual([
      ["month", rub("5")],
      ["day", rub("3")],
    ]);
    const settled = await charge(a, rub("0.5"));
    // 3.5 of the day's 4 and 5.5 of the month's 10: both past 50 %, each announced once, naming the account.
    expect(settled.events).toBe(2);
    const events: StoredEvent[] = (await store.stores.events.recent("acme", 100)).map(
      (listed) => listed.event,
    );
    const thresholds = events.filter((event) => event.type === "budget.threshold");
    expect(thresholds.map((event) => [event.keyId, event.fields.scope, event.fields.period])).toEqual(
      expect.arrayContaining([
        [null, "account", "day"],
        [null, "account", "month"],
      ]),
    );
    expect((await charge(a, rub("0.1"))).events).toBe(0);
  });

  it("refuse a key's creation while one of them is used up, and a mode that does not fit the windows", async () => {
    await open();
    await accountBudgets({ billing: "budgeted", budgets: ["1/day"] });
    await charge(await key(), rub("1"));
    await expect(key()).rejects.toMatchObject({ code: "budget_exceeded" });
    await expect(accountBudgets({ billing: "budgeted", budgets: [] })).rejects.toMatchObject({
      code: "invalid_request",
      message: "a budgeted account needs at least one budget (such as 300000/month)",
    });
    await expect(accountBudgets({ budgets: ["1/day", "2/day"] })).rejects.toMatchObject({
      message: expect.stringContaining("day is given twice"),
    });
    await expect(accountBudgets({ billing: "prepaid", budgets: ["1/day"] })).rejects.toMatchObject({
      code: "invalid_request",
    });
  });
});
