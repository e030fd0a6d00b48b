// The books check's own comparison (services/books-check.ts) on the suite's Redis, with charges settled by the
// real settle script at times the test sets: which figures it compares (each key's days, its windows or its
// spending period, the account's windows, whole months), the sign of a difference, the periods it cannot tell
// from a log that begins later, and a window whose period has rolled over since its last charge.
// test/cli/books-commands.test.ts runs the command around it.

import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseRubles } from "../../src/core/money.js";
import { BooksCheck } from "../../src/services/books-check.js";
import { BudgetService } from "../../src/services/budgets.js";
import type { LoggedCharge } from "../../src/services/logged-charges.js";
import { ACTOR } from "../helpers/actor.js";
import { settlementAt } from "../helpers/billing-scripts.js";
import { TestClock } from "../helpers/clock.js";
import { openStore, type TestStore } from "../helpers/store.js";

const rub = (text: string) => parseRubles(text, "test amount");

let store: TestStore;
let lines = 0;
beforeEach(async () => {
  // Sunday 1 November 2026, the month's first day; nextDay() is Monday the 2nd, when a week begins.
  store = await openStore({ clock: new TestClock(Date.parse("2026-11-01T09:00:00Z")) });
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  lines = 0;
});
afterEach(() => store.close());

async function key(input: { budgets?: string[] } = {}): Promise<string> {
  const { record } = await store.keyService.create({ accountId: "acme", name: "k", ...input }, ACTOR);
  return record.id;
}

/** Settles a request of the key for `cost` µ₽ at the clock's time, and returns the log's charge for it. */
async function charged(keyId: string, cost: number, accountId = "acme"): Promise<LoggedCharge> {
  const ref = { accountId, keyId };
  const now = store.clock.now();
  const reservationId = randomUUID();
  const reserved = await store.billing.reserve(ref, {
    reservationId,
    amount: cost,
    tokens: 0,
    keyHash: (await store.keyService.show(keyId)).hash as string,
    now,
    periods: store.calendar.at(now),
    expiresAt: now + 60_000,
    model: { kind: "none" },
  });
  expect(reserved).toMatchObject({ ok: true });
  await store.billing.settle({
    ref,
    ...settlementAt(store, reservationId, cost, { latencyMs: 1 }),
  });
  return logged(keyId, cost, accountId);
}

/** A charge the log tells of, whether Redis has it or not. */
function logged(keyId: string, cost: number, accountId = "acme"): LoggedCharge {
  lines++;
  return { line: lines, accountId, keyId, requestId: `req-${lines}`, cost, at: store.clock.now() };
}

function check(charges: LoggedCharge[]) {
  const books = new BooksCheck(store.stores);
  for (const charge of charges) books.add(charge);
  return books.compare();
}

const nextDay = () => store.clock.set("2026-11-02T10:00:00Z");

describe("BooksCheck", () => {
  it("compares nothing without a charge", async () => {
    expect(await check([])).toEqual({
      compared: { accounts: 0, keys: 0, days: 0, windows: 0, months: 0 },
      differences: [],
      notCompared: [],
    });
  });

  it("agrees when Redis holds every logged charge: keys by day, key and account windows, the month", async () => {
    await new BudgetService(store.stores).setAccountBudgets("acme", { budgets: ["50/month"] }, ACTOR);
    const windowed = await key({ budgets: ["10/day", "20/week"] });
    const plain = await key();
    const charges = [await charged(windowed, rub("1"))];
    nextDay();
    charges.push(await charged(windowed, rub("2")), await charged(plain, rub("0.5")));
    expect(await check(charges)).toEqual({
      // two keys on two days; the key's day and week, the plain key's spending period, the account's month
      compared: { accounts: 1, keys: 2, days: 2, windows: 4, months: 1 },
      differences: [],
      notCompared: [],
    });
  });

  it("reports each figure Redis holds less of than the log, as Redis less the log", async () => {
    await new BudgetService(store.stores).setAccountBudgets("acme", { budgets: ["50/week"] }, ACTOR);
    const id = await key({ budgets: ["10/day"] });
    nextDay();
    const charges = [await charged(id, rub("2")), logged(id, rub("0.25"))];
    const { differences } = await check(charges);
    const from = "2026-11-02T00:00:00.000Z";
    const lost = { log: rub("2.25"), redis: rub("2"), difference: -rub("0.25") };
    expect(differences).toEqual([
      { accountId: "acme", keyId: id, figure: { day: "2026-11-02" }, ...lost },
      { accountId: "acme", keyId: id, figure: { window: "day", from }, ...lost },
      {
        accountId: "acme",
        keyId: null,
        figure: { window: "week", from },
        ...lost,
      },
    ]);
  });

  it("reports a charge the log does not tell of as a positive difference", async () => {
    const id = await key({ budgets: ["10/day"] });
    const told = await charged(id, rub("1"));
    await charged(id, rub("3"));
    const { differences } = await check([told]);
    expect(differences.map(({ keyId, figure, difference }) => ({ keyId, figure, difference }))).toEqual([
      { keyId: id, figure: { day: "2026-11-01" }, difference: rub("3") },
      { keyId: id, figure: { window: "day", from: "2026-11-01T00:00:00.000Z" }, difference: rub("3") },
      { keyId: null, figure: { month: "2026-11" }, difference: rub("3") },
    ]);
  });

  it("compares a logged key Redis no longer lists, which it then holds nothing of", async () => {
    const id = await key();
    const charges = [await charged(id, rub("1")), logged("gone-key", rub("4"))];
    const statement = await check(charges);
    expect(statement.compared.keys).toBe(2);
    expect(statement.differences).toContainEqual({
      accountId: "acme",
      keyId: "gone-key",
      figure: { day: "2026-11-01" },
      log: rub("4"),
      redis: 0,
      difference: -rub("4"),
    });
  });

  it("leaves out the windows and the month whose period began before the log's first day, saying so", async () => {
    await new BudgetService(store.stores).setAccountBudgets(
      "acme",
      { budgets: ["50/month", "5/day"] },
      ACTOR,
    );
    const id = await key({ budgets: ["10/week"] });
    nextDay();
    const statement = await check([await charged(id, rub("1"))]);
    expect(statement.compared).toEqual({ accounts: 1, keys: 1, days: 1, windows: 2, months: 0 });
    expect(statement.notCompared).toEqual([
      "the month window of account acme: its period began 2026-11-01T00:00:00.000Z, before the log's first day",
    ]);
    expect(statement.differences).toEqual([]);
  });

  it("judges a window by its current period: one charged only before its period rolled over holds nothing", async () => {
    const id = await key({ budgets: ["10/day"] });
    const yesterday = await charged(id, rub("1"));
    nextDay();
    const statement = await check([yesterday]);
    // Redis still keeps the day window's old figure; the current day has no charge in the log nor in Redis.
    expect((await store.keys.get({ accountId: "acme", keyId: id }))?.budgets[0]?.spent).toBe(rub("1"));
    expect(statement.differences).toEqual([]);
    expect(statement.compared).toMatchObject({ days: 1, windows: 1 });
  });

  it("compares each account of the log on its own", async () => {
    await store.accountService.create({ id: "beta", balance: "100" }, ACTOR);
    const a = await key();
    const { record } = await store.keyService.create({ accountId: "beta", name: "b" }, ACTOR);
    const charges = [await charged(a, rub("1")), await charged(record.id, rub("2"), "beta"), logged(a, 1)];
    const statement = await check(charges);
    expect(statement.compared).toMatchObject({ accounts: 2, keys: 2, months: 2 });
    expect(new Set(statement.differences.map((d) => d.accountId))).toEqual(new Set(["acme"]));
  });
});
