// The budget service's own decisions (services/budgets.ts): windows read from a caller's list (texts or
// {period, amount}, each error naming the field), the spent amount a new window starts from, the days of the
// month it is summed over, and setAccountBudgets' choice of billing mode, its refusals (nothing written) and
// its retries while the account is charged. The windows' effect on reserve and settle is
// test/store/billing/budget-windows.test.ts's. On the suite's Redis.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseRubles } from "../../src/core/money.js";
import { PeriodCalendar } from "../../src/core/periods.js";
import {
  type AccountBudgetsInput,
  BudgetService,
  monthDays,
  windowDetails,
  windowsInput,
  windowWrites,
} from "../../src/services/budgets.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

const rub = (text: string) => parseRubles(text, "test amount");
const utc = new PeriodCalendar("UTC");

describe("windowsInput", () => {
  it("reads texts and {period, amount} objects, amounts as numbers or texts", () => {
    expect(
      windowsInput(["100/day", { period: "month", amount: 2000.5 }, { period: "week", amount: "7" }]),
    ).toEqual([
      { period: "day", budget: rub("100") },
      { period: "month", budget: rub("2000.5") },
      { period: "week", budget: rub("7") },
    ]);
    expect(windowsInput([])).toEqual([]);
  });

  it("refuses anything but a list, naming the field it was given as", () => {
    expect(() => windowsInput("100/day")).toThrow(/^budgets must be a list/);
    expect(() => windowsInput({ period: "day" }, "windows")).toThrow(/^windows must be a list/);
    expect(() => windowsInput(null)).toThrow(expect.objectContaining({ code: "invalid_request" }));
  });

  it("names the item of a bad text, and the period or amount of a bad object", () => {
    expect(() => windowsInput(["100/day", "100/year"])).toThrow(
      'budgets[1] must be an amount in rubles per period (day, week, month), such as 100/day or 2000/month; got "100/year"',
    );
    expect(() => windowsInput(["0/day"])).toThrow(/^budgets\[0\] must be/);
    expect(() => windowsInput([{ period: "hour", amount: 1 }])).toThrow(
      'budgets[0].period must be day, week or month; got "hour"',
    );
    expect(() => windowsInput([{ amount: 1 }])).toThrow(
      "budgets[0].period must be day, week or month; got nothing",
    );
    expect(() => windowsInput([null])).toThrow("budgets[0].period must be day, week or month; got nothing");
    expect(() => windowsInput([{ period: "day", amount: true }])).toThrow(
      /^budgets\[0\]\.amount must be an amount/,
    );
    expect(() => windowsInput([{ period: "day", amount: 0 }])).toThrow(/budgets\[0\]\.amount/);
    expect(() => windowsInput([{ period: "day", amount: -1 }], "windows")).toThrow(/windows\[0\]\.amount/);
  });

  it("refuses a period given twice and more than three windows, as a whole list", () => {
    expect(() => windowsInput(["1/day", { period: "day", amount: 2 }])).toThrow(
      /^budgets: .*day is given twice/,
    );
    expect(() => windowsInput(["1/day", "1/week", "1/month", "2/day"])).toThrow(/^budgets: .*got 4/);
  });
});

describe("windowDetails", () => {
  it("writes each window as the audit log records it, rubles per period", () => {
    expect(windowDetails([])).toEqual([]);
    expect(
      windowDetails([
        { period: "day", budget: rub("100") },
        { period: "month", budget: rub("0.000001") },
      ]),
    ).toEqual(["100/day", "0.000001/month"]);
  });
});

describe("monthDays", () => {
  it("lists the month's days up to today", () => {
    const now = Date.parse("2026-11-04T10:00:00Z"); // a Wednesday: the week began on Monday the 2nd
    expect(monthDays(utc.at(now), now, "UTC")).toEqual([
      "2026-11-01",
      "2026-11-02",
      "2026-11-03",
      "2026-11-04",
    ]);
  });

  it("starts at the week's Monday when the week began in the month before", () => {
    const now = Date.parse("2026-12-02T23:59:59Z"); // Wednesday; Monday was 30 November
    expect(monthDays(utc.at(now), now, "UTC")).toEqual(["2026-11-30", "2026-12-01", "2026-12-02"]);
  });

  it("counts days in the billing time zone, not UTC", () => {
    const moscow = new PeriodCalendar("Europe/Moscow");
    const now = Date.parse("2026-11-30T22:30:00Z"); // already 1 December (a Tuesday) in Moscow
    expect(monthDays(moscow.at(now), now, "Europe/Moscow")).toEqual(["2026-11-30", "2026-12-01"]);
  });
});

describe("windowWrites", () => {
  it("starts each window in its current period with what the days since its first day cost", () => {
    const now = Date.parse("2026-12-02T10:00:00Z");
    const periods = utc.at(now);
    const days = ["2026-11-30", "2026-12-01", "2026-12-02"];
    const writes = windowWrites(
      [
        { period: "day", budget: rub("10") },
        { period: "week", budget: rub("20") },
        { period: "month", budget: rub("30") },
      ],
      periods,
      "UTC",
      days,
      [100, 20, 3],
    );
    expect(writes).toEqual([
      { period: "day", budget: String(rub("10")), spent: "3", period_start: String(periods.day.start) },
      { period: "week", budget: String(rub("20")), spent: "123", period_start: String(periods.week.start) },
      { period: "month", budget: String(rub("30")), spent: "23", period_start: String(periods.month.start) },
    ]);
  });

  it("takes a day without a cost as nothing spent", () => {
    const now = Date.parse("2026-12-02T10:00:00Z");
    const [write] = windowWrites(
      [{ period: "month", budget: 1 }],
      utc.at(now),
      "UTC",
      ["2026-12-01", "2026-12-02"],
      [5],
    );
    expect(write?.spent).toBe("5");
  });
});

describe("BudgetService.setAccountBudgets", () => {
  let store: TestStore;
  let budgets: BudgetService;
  beforeEach(async () => {
    store = await openStore();
    budgets = new BudgetService(store.stores);
    await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  });
  afterEach(() => store.close());

  const set = (input: AccountBudgetsInput) => budgets.setAccountBudgets("acme", input, ACTOR);
  const auditActions = async () =>
    (await store.accountService.audit("acme", 100)).map((entry) => entry.action);

  it("makes a prepaid account given budgets without a mode 'both', nothing looser than its balance", async () => {
    const account = await set({ budgets: ["100/day"] });
    expect(account.billing).toBe("both");
    expect(account.budgets).toMatchObject([{ period: "day", budget: rub("100"), spent: 0 }]);
  });

  it("keeps a budgeted account budgeted when only its windows change", async () => {
    await set({ billing: "budgeted", budgets: ["100/day"] });
    const account = await set({ budgets: ["5/week", "50/month"] });
    expect(account.billing).toBe("budgeted");
    expect(account.budgets.map((window) => window.period)).toEqual(["week", "month"]);
  });

  it("makes an account prepaid when its windows are removed without a mode", async () => {
    await set({ billing: "budgeted", budgets: ["100/day"] });
    const account = await set({ budgets: [] });
    expect(account).toMatchObject({ billing: "prepaid", budgets: [] });
  });

  it("changes the mode alone, keeping the windows it has", async () => {
    await set({ budgets: ["100/day"] });
    const account = await set({ billing: "budgeted" });
    expect(account.billing).toBe("budgeted");
    expect(account.budgets).toMatchObject([{ period: "day", budget: rub("100") }]);
  });

  it("sets thresholds, back to the configured ones with null, none with []", async () => {
    await set({ budgets: ["100/day"] });
    expect((await set({ alertAt: [50, 90] })).alertAt).toEqual([50, 90]);
    expect((await set({ alertAt: [] })).alertAt).toEqual([]);
    expect((await set({ alertAt: null })).alertAt).toBeNull();
  });

  it("audits the change under its actor with the mode, the windows in rubles and the thresholds", async () => {
    await budgets.setAccountBudgets("acme", { budgets: ["2.5/month"], alertAt: [80] }, { kind: "admin" });
    const [entry] = await store.accountService.audit("acme", 1);
    expect(entry).toMatchObject({
      action: "account.budgets.update",
      actor: "admin",
      details: { billing: "both", budgets: ["2.5/month"], alert_at: [80] },
    });
  });

  it("refuses a bad mode, bad thresholds and an empty change, naming the field, and writes nothing", async () => {
    const before = await store.accounts.require("acme");
    await expect(set({ billing: "postpaid" })).rejects.toMatchObject({
      code: "invalid_request",
      message: 'billing must be prepaid, budgeted or both; got "postpaid"',
    });
    await expect(set({ alertAt: "50" })).rejects.toMatchObject({
      message: expect.stringMatching(/^alert_at must be/),
    });
    await expect(set({ alertAt: [0] })).rejects.toMatchObject({
      message: expect.stringMatching(/^alert_at must be/),
    });
    await expect(set({})).rejects.toMatchObject({
      message: "nothing to change: give billing, budgets or alert_at",
    });
    await expect(set({ billing: "budgeted" })).rejects.toMatchObject({
      message: "a budgeted account needs at least one budget (such as 300000/month)",
    });
    await expect(set({ billing: "prepaid", budgets: ["1/day"] })).rejects.toMatchObject({
      message: expect.stringMatching(/^a prepaid account has no budgets/),
    });
    expect(await store.accounts.require("acme")).toEqual(before);
    expect(await auditActions()).toEqual(["account.create"]);
  });

  it("refuses an account that does not exist with account_not_found", async () => {
    await expect(budgets.setAccountBudgets("ghost", { budgets: ["1/day"] }, ACTOR)).rejects.toMatchObject({
      code: "account_not_found",
    });
  });

  it("reads again and retries when the account is charged meanwhile, giving up after five attempts", async () => {
    let charges = 0;
    /** The real store, but a request of the account is counted between each read and its write. */
    const chargedMeanwhile = (times: number) =>
      new BudgetService({
        ...store.stores,
        accounts: Object.assign(Object.create(store.accounts), {
          budgetSpending: async (...args: Parameters<typeof store.accounts.budgetSpending>) => {
            const read = await store.accounts.budgetSpending(...args);
            if (charges < times) {
              charges++;
              await store.redis.hincrby(store.redisKeys.month("acme", args[2]), "requests", 1);
            }
            return read;
          },
        }),
      });

    expect(
      (await chargedMeanwhile(4).setAccountBudgets("acme", { budgets: ["1/day"] }, ACTOR)).budgets,
    ).toHaveLength(1);
    expect(charges).toBe(4);

    charges = 0;
    await expect(
      chargedMeanwhile(5).setAccountBudgets("acme", { budgets: ["2/day", "9/month"] }, ACTOR),
    ).rejects.toMatchObject({
      code: "service_unavailable",
      message: "account acme was charged during each of 5 attempts to set its budgets; try again",
    });
    expect(charges).toBe(5);
    expect((await store.accounts.require("acme")).budgets).toMatchObject([
      { period: "day", budget: rub("1") },
    ]);
  });
});
