// The generators of the money model's runs (fast-check): how a run begins (the account's mode and windows,
// its first keys), its prices, and its commands (commands.ts), weighted towards requests.

import fc from "fast-check";
import { PERIODS, type Period } from "../../../src/core/periods.js";
import {
  Advance,
  CreateKey,
  Expire,
  Finish,
  Kill,
  LoseReservation,
  type MoneyCommand,
  Release,
  SetAccount,
  Start,
  Tick,
  ToBoundary,
  TopUp,
} from "./commands.js";
import type { Mode, Price, WindowSpec } from "./model.js";

/** Up to three windows of distinct periods, of 1 to 60 ₽. */
const windows = (min: number) =>
  fc
    .uniqueArray(fc.constantFrom<Period>(...PERIODS), { minLength: min, maxLength: 3 })
    .chain((periods) =>
      fc
        .tuple(...periods.map(() => fc.integer({ min: 1, max: 60 })))
        .map((amounts) =>
          periods.map((period, i): WindowSpec => ({ period, budget: (amounts[i] as number) * 500_000 })),
        ),
    );

const accountSetting = fc.oneof(
  fc.constant<{ mode: Mode; windows: WindowSpec[] }>({ mode: "prepaid", windows: [] }),
  fc.record({ mode: fc.constantFrom<Mode>("budgeted", "both"), windows: windows(1) }),
);

/** What a request used, in percent of what it could have. */
const percent = fc.integer({ min: 0, max: 100 });
const usage = fc.record({
  prompt: percent,
  cached: percent,
  completion: percent,
  status: fc.constantFrom(200, 200, 200, 500),
});

/** Mostly small requests (a lease covers many of them), some large ones. */
const tokens = (most: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: Math.ceil(most / 10) }) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: most }) },
  );

/**
 * Every command, weighted towards requests. A replica killed and a client leaving only where the system
 * drives them (the billing layer's runs).
 */
export function moneyCommands(options: {
  kill: boolean;
  release: boolean;
  expire: boolean;
  /** Settle replies lost and reservations lost in a failover (where the system can do them). */
  failover?: boolean;
}) {
  const slot = fc.nat({ max: 1 });
  return [
    windows(0).map((w) => new CreateKey(w)),
    accountSetting.map((s) => new SetAccount(s.mode, s.windows)),
    fc.integer({ min: 1, max: 40 }).map((rubles) => new TopUp(rubles * 500_000)),
    ...Array.from({ length: 8 }, () =>
      fc
        .tuple(slot, fc.nat({ max: 2 }), fc.nat(), tokens(2000), tokens(800))
        .map(([s, key, price, promptMax, cap]) => new Start(s, key, price, promptMax, cap)),
    ),
    ...Array.from({ length: 4 }, () =>
      fc
        .tuple(
          fc.array(fc.record({ request: fc.nat(), usage }), { minLength: 1, maxLength: 4 }),
          options.failover
            ? fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, fc.constant(true))
            : fc.constant(false),
        )
        .map(([picks, lostReply]) => new Finish(picks, lostReply)),
    ),
    ...(options.failover ? [fc.nat().map((i): MoneyCommand => new LoseReservation(i))] : []),
    ...(options.release ? [fc.nat().map((i): MoneyCommand => new Release(i))] : []),
    fc.oneof(
      // Mostly within the 2 s a lease's facts stay fresh for, sometimes beyond.
      { weight: 4, arbitrary: fc.integer({ min: 0, max: 500 }).map((ms): MoneyCommand => new Advance(ms)) },
      {
        weight: 2,
        arbitrary: fc.integer({ min: 0, max: 15_000 }).map((ms): MoneyCommand => new Advance(ms)),
      },
      { weight: options.expire ? 1 : 0, arbitrary: fc.constant<MoneyCommand>(new Expire()) },
    ),
    fc
      .tuple(fc.constantFrom<Period>(...PERIODS), fc.integer({ min: 1, max: 3000 }))
      .map(([period, before]) => new ToBoundary(period, before)),
    fc.oneof(
      { weight: 4, arbitrary: slot.map((s): MoneyCommand => new Tick(s)) },
      { weight: options.kill ? 1 : 0, arbitrary: slot.map((s): MoneyCommand => new Kill(s)) },
    ),
  ];
}

/** How a run begins: the account's mode and windows, and its first keys. */
export const beginning = fc.record({
  account: accountSetting,
  keys: fc.array(windows(0), { minLength: 1, maxLength: 2 }),
});
export type Beginning = typeof beginning extends fc.Arbitrary<infer T> ? T : never;

/** The commands a run begins with: its account's mode and windows, then its keys. */
export function beginningCommands(b: Beginning): MoneyCommand[] {
  return [new SetAccount(b.account.mode, b.account.windows), ...b.keys.map((w) => new CreateKey(w))];
}

/** A model that costs nothing: its requests hold nothing, and a used-up window or balance refuses them all the same. */
export const FREE: Price = { name: "free", input: 0, cachedInput: 0, output: 0, perRequest: 0 };

/** Prices of a run: one with a cheaper cached input, one with a per-request fee, and a free one. */
export const prices: fc.Arbitrary<Price[]> = fc
  .tuple(
    fc.integer({ min: 50, max: 2000 }),
    fc.integer({ min: 100, max: 4000 }),
    fc.integer({ min: 1, max: 300 }),
  )
  .map(([input, output, fee]) => [
    {
      name: "cached",
      input: input * 1_000_000,
      cachedInput: input * 250_000,
      output: output * 1_000_000,
      perRequest: 0,
    },
    {
      name: "fee",
      input: input * 1_000_000,
      cachedInput: input * 1_000_000,
      output: output * 1_000_000,
      perRequest: fee * 1000,
    },
    FREE,
  ]);
