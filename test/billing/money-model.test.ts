// The money path against its reference model (test/helpers/money/): random sequences of operations on one or
// two replicas of the billing layer — the real request billing, lease service and book, settlement queue,
// stores and Lua scripts, sharing the suite's Redis, on a clock the test moves — with leases on or off, in the
// Europe/Moscow billing zone. After every step the invariants of invariants.ts hold; at the end of every run
// the account is idle and its books add up. MONEY_RUNS sets the number of runs (docs/development.md).

import fc from "fast-check";
import { describe, it } from "vitest";
import { TestClock } from "../helpers/clock.js";
import { BillingSystem } from "../helpers/money/billing-system.js";
import {
  beginning,
  beginningCommands,
  moneyCommands,
  prices,
  type RunModel,
} from "../helpers/money/commands.js";
import { MoneyModel } from "../helpers/money/model.js";
import { runMoney } from "../helpers/money/run.js";

const RUNS = Number(process.env.MONEY_RUNS ?? 40);
const ZONE = "Europe/Moscow";
/** Longer than any run moves the clock but by the expiry command, which moves it past this. */
const TTL_MS = 5 * 365 * 86_400_000;

const setting = fc.record({
  replicas: fc.constantFrom(1, 2),
  leases: fc.boolean(),
  // Mid-day; ten minutes before the end of a day, of a week (Sunday) and of a month, in Moscow.
  start: fc.constantFrom(
    "2026-11-18T07:00:00Z",
    "2026-11-18T20:50:00Z",
    "2026-11-22T20:50:00Z",
    "2026-11-30T20:50:00Z",
  ),
  balance: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 400 }).map((rubles) => rubles * 500_000),
  ),
  prices,
  beginning,
});

const totals: Record<string, number> = {};

describe("the money path against its model", () => {
  it("keeps every window, balance and reservation exact at every step, for any sequence of operations", async () => {
    await fc.assert(
      fc.asyncProperty(
        setting,
        fc.commands(moneyCommands({ kill: true, expire: true }), { maxCommands: 60, size: "max" }),
        async (s, commands) => {
          const clock = new TestClock(Date.parse(s.start));
          const system = await BillingSystem.open({
            replicas: s.replicas,
            leases: s.leases,
            zone: ZONE,
            clock,
            ttlMs: TTL_MS,
            balance: s.balance,
          });
          const model: RunModel = {
            money: new MoneyModel(ZONE, s.balance),
            replicas: s.replicas,
            prices: s.prices,
            ttlMs: TTL_MS,
            stats: {},
            nextId: 0,
          };
          try {
            await runMoney(model, { system, clock }, [...beginningCommands(s.beginning), ...commands]);
          } finally {
            await system.close();
            for (const [what, n] of Object.entries(model.stats)) totals[what] = (totals[what] ?? 0) + n;
          }
        },
      ),
      { numRuns: RUNS },
    );
    // A long run says what it covered.
    if (process.env.MONEY_RUNS) console.log(totals);
  }, 600_000);
});
