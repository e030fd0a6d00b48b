// The money model (test/helpers/money/) through one and two real gateways over HTTP: keys with any windows,
// the account's windows and mode set and switched, top-ups, requests of random worst case and real cost on
// either gateway, ended alone or together with usage a stub model server reports (cached prompt tokens, a
// per-request fee, error statuses), the clock moved across day, week and month boundaries in the billing
// zone — with admission leases on and off. After every step the invariants of
// invariants.ts hold in Redis; at the end of every run the account is idle and Σ the request log lines'
// costs = Σ charged = Σ the daily and monthly counters = Δ balance. Fewer runs than the billing layer's
// (test/billing/money-model.test.ts), which drives the same model much faster: MONEY_RUNS / 10 of them.
// Reservations are not left to expire here: a gateway's reservation keeper extends those of running requests
// on a timer of its own, so whether one expired would be a race; the billing layer's runs expire them.

import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import { TestClock } from "../helpers/clock.js";
import { beginning, beginningCommands, moneyCommands } from "../helpers/money/arbitraries.js";
import type { RunModel } from "../helpers/money/commands.js";
import { FLEET_PRICES, GatewayFleet } from "../helpers/money/gateway-fleet.js";
import { MoneyModel } from "../helpers/money/model.js";
import { runMoney } from "../helpers/money/run.js";

const RUNS = Math.max(1, Math.round(Number(process.env.MONEY_RUNS ?? 40) / 10));
const ZONE = "Europe/Moscow";
const TTL_MS = 5 * 365 * 86_400_000;

describe.each([true, false])("the money path through gateways (leases %s)", (leases) => {
  const clock = new TestClock(Date.parse("2026-11-18T07:00:00Z"));
  const totals: Record<string, number> = {};
  let fleet: GatewayFleet;
  beforeAll(async () => {
    fleet = await GatewayFleet.start({ clock, zone: ZONE, ttlMs: TTL_MS, leases });
  });
  afterAll(() => fleet?.close());

  it(
    "keeps every window, balance and reservation exact at every step, on one and two gateways",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            replicas: fc.constantFrom(1, 2),
            // From the clock where the previous run left it: mid-day, or ten minutes before a day's end.
            offset: fc.constantFrom(0, 86_400_000 - 600_000),
            balance: fc.integer({ min: 0, max: 400 }).map((rubles) => rubles * 500_000),
            beginning,
          }),
          fc.commands(moneyCommands({ kill: false, release: false, expire: false }), {
            maxCommands: 40,
            size: "max",
          }),
          async (s, commands) => {
            clock.advance(s.offset);
            const system = await fleet.system(s.replicas, ZONE, s.balance);
            const model: RunModel = {
              money: new MoneyModel(ZONE, s.balance),
              replicas: s.replicas,
              prices: FLEET_PRICES,
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
    },
    60_000 + RUNS * 2000,
  );
});
