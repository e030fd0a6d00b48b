// The operations of the money model as fast-check commands (fc.commands, run by fc.asyncModelRun): create
// keys with any windows, set or clear the account's windows and switch its mode, top up, start requests of
// random worst cases on either replica, end them (alone or several in one batch) with random usage, let
// their clients leave, move the clock (a little, or to just before a day, week or month boundary in the
// billing zone), let every reservation and lease expire, tick a replica's leases, kill a replica. Each
// command works on the model and the system alike and checks the invariants after it (invariants.ts).
// Commands pick requests, keys and replicas by index modulo what exists when they run, so that a shrunk
// sequence stays valid.

import fc from "fast-check";
import { expect } from "vitest";
import type { Micros } from "../../../src/core/money.js";
import { PERIODS, type Period } from "../../../src/core/periods.js";
import type { TestClock } from "../clock.js";
import { checkAdmission, checkStep } from "./invariants.js";
import {
  costOf,
  type Mode,
  ModelKey,
  type ModelRequest,
  type MoneyModel,
  nextPeriodStart,
  type Price,
  type Usage,
  type WindowSpec,
  worstCase,
} from "./model.js";
import type { MoneySystem } from "./system.js";

/** The model's side of a run: the rules' state and what the run is made of. */
export interface RunModel {
  money: MoneyModel;
  replicas: number;
  prices: Price[];
  /** How long reservations and leases live (ms): the expiry command moves the clock past it. */
  ttlMs: number;
  /** Counts by outcome, for the report of a long run. */
  stats: Record<string, number>;
  nextId: number;
}

export interface RunReal {
  system: MoneySystem;
  clock: TestClock;
}

type MoneyCommand = fc.AsyncCommand<RunModel, RunReal>;

const MOST_KEYS = 3;

async function afterStep(m: RunModel, r: RunReal): Promise<void> {
  count(m, "steps");
  checkStep(m.money, await r.system.snapshot(), r.clock.now());
  expect(r.system.unexpectedErrors(), "failed settlements and lease calls").toEqual([]);
}

const count = (m: RunModel, what: string) => {
  m.stats[what] = (m.stats[what] ?? 0) + 1;
};

function running(m: RunModel): ModelRequest[] {
  return [...m.money.requests.values()].filter((r) => !r.orphaned);
}

const describeWindows = (windows: readonly WindowSpec[]) =>
  windows.map((w) => `${w.budget / 1e6}/${w.period}`).join(",") || "none";

// --- The arbitraries ------------------------------------------------------------------------------------

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
type UsageShare = typeof usage extends fc.Arbitrary<infer T> ? T : never;

function usageOf(request: ModelRequest, share: UsageShare): Usage {
  const prompt = Math.floor((share.prompt * request.promptMax) / 100);
  return {
    prompt,
    cached: Math.floor((share.cached * prompt) / 100),
    completion: Math.floor((share.completion * request.cap) / 100),
    status: share.status,
  };
}

// --- The commands ---------------------------------------------------------------------------------------

class CreateKey implements MoneyCommand {
  constructor(readonly windows: WindowSpec[]) {}
  check = (m: Readonly<RunModel>) => m.money.keys.length < MOST_KEYS;
  async run(m: RunModel, r: RunReal) {
    const { money } = m;
    money.roll(r.clock.now());
    const created = await r.system.createKey(this.windows);
    const refusal = money.keyRefusal();
    if ("refused" in created) {
      expect(created.refused, "a key refused").toBe(refusal);
      count(m, `key refused ${refusal}`);
    } else {
      expect(refusal, "a key created").toBeNull();
      money.keys.push(
        new ModelKey(money.keys.length, created.keyId, this.windows, r.clock.now(), money.zone),
      );
    }
    await afterStep(m, r);
  }
  toString = () => `createKey(${describeWindows(this.windows)})`;
}

class SetAccount implements MoneyCommand {
  constructor(
    readonly mode: Mode,
    readonly windows: WindowSpec[],
  ) {}
  check = () => true;
  async run(m: RunModel, r: RunReal) {
    await r.system.setAccount(this.mode, this.windows);
    m.money.setAccount(this.mode, this.windows, r.clock.now());
    await afterStep(m, r);
  }
  toString = () => `setAccount(${this.mode}, ${describeWindows(this.windows)})`;
}

class TopUp implements MoneyCommand {
  constructor(readonly amount: Micros) {}
  check = () => true;
  async run(m: RunModel, r: RunReal) {
    await r.system.topUp(this.amount);
    m.money.topUp(this.amount);
    await afterStep(m, r);
  }
  toString = () => `topUp(${this.amount / 1e6})`;
}

class Start implements MoneyCommand {
  constructor(
    readonly slot: number,
    readonly key: number,
    readonly price: number,
    readonly promptMax: number,
    readonly cap: number,
  ) {}
  check = (m: Readonly<RunModel>) => m.money.keys.length > 0;
  async run(m: RunModel, r: RunReal) {
    const { money } = m;
    const key = money.keys[this.key % money.keys.length] as ModelKey;
    const price = m.prices[this.price % m.prices.length] as Price;
    const slot = this.slot % m.replicas;
    const worst = worstCase(price, this.promptMax, this.cap);
    const id = `r${m.nextId++}`;
    money.roll(r.clock.now());
    const admission = await r.system.start({
      id,
      slot,
      key: { accountId: r.system.accountId, keyId: key.id },
      price,
      promptMax: this.promptMax,
      cap: this.cap,
      worst,
    });
    checkAdmission(money, key, worst, admission);
    if (admission.ok) {
      count(m, `admitted on ${admission.path}`);
      money.admit({
        id,
        key,
        slot,
        price,
        promptMax: this.promptMax,
        cap: this.cap,
        worst,
        path: admission.path,
        reservationId: admission.reservationId,
        leaseId: admission.leaseId,
        state: "held",
        orphaned: false,
      });
    } else {
      const leased =
        (admission.figures?.reserved ?? 0) > (admission.scope === "key" ? money.held(key) : money.held());
      count(m, `refused ${admission.code}${leased ? " while leases held part" : ""}`);
    }
    await afterStep(m, r);
  }
  toString = () =>
    `start(replica ${this.slot}, key ${this.key}, price ${this.price}, prompt ≤ ${this.promptMax}, cap ${this.cap})`;
}

class Finish implements MoneyCommand {
  constructor(readonly picks: { request: number; usage: UsageShare }[]) {}
  check = (m: Readonly<RunModel>) => running(m).length > 0;
  async run(m: RunModel, r: RunReal) {
    const all = running(m);
    const first = all[(this.picks[0]?.request ?? 0) % all.length] as ModelRequest;
    // Requests of one replica, ending together: their settlements go in one batch.
    const same = all.filter((request) => request.slot === first.slot);
    const ended = new Map<ModelRequest, Usage>();
    for (const pick of this.picks) {
      const request = same[pick.request % same.length] as ModelRequest;
      if (!ended.has(request)) ended.set(request, usageOf(request, pick.usage));
    }
    await r.system.finish(
      first.slot,
      [...ended].map(([request, u]) => ({ id: request.id, usage: u })),
    );
    const now = r.clock.now();
    for (const [request, u] of ended) {
      m.money.settle(request, costOf(request.price, u, request.worst), now);
      count(m, request.state === "expired" ? "settled late" : "settled");
    }
    await afterStep(m, r);
  }
  toString = () => `finish(${this.picks.map((p) => `#${p.request} ${JSON.stringify(p.usage)}`).join("; ")})`;
}

class Release implements MoneyCommand {
  constructor(readonly request: number) {}
  check = (m: Readonly<RunModel>) => running(m).length > 0;
  async run(m: RunModel, r: RunReal) {
    const all = running(m);
    const request = all[this.request % all.length] as ModelRequest;
    await r.system.release(request.id);
    m.money.settle(request, 0, r.clock.now());
    count(m, "released");
    await afterStep(m, r);
  }
  toString = () => `release(#${this.request})`;
}

class Advance implements MoneyCommand {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(m: RunModel, r: RunReal) {
    r.clock.advance(this.ms);
    await afterStep(m, r);
  }
  toString = () => `advance(${this.ms} ms)`;
}

class ToBoundary implements MoneyCommand {
  constructor(
    readonly period: Period,
    readonly beforeMs: number,
  ) {}
  check = () => true;
  async run(m: RunModel, r: RunReal) {
    const at = nextPeriodStart(this.period, r.clock.now(), m.money.zone) - this.beforeMs;
    if (at > r.clock.now()) r.clock.ms = at;
    count(m, `to a ${this.period}'s end`);
    await afterStep(m, r);
  }
  toString = () => `toBoundary(${this.period} − ${this.beforeMs} ms)`;
}

class Expire implements MoneyCommand {
  check = () => true;
  async run(m: RunModel, r: RunReal) {
    r.clock.advance(m.ttlMs + 1);
    m.money.expireAll();
    count(m, "expired");
    await afterStep(m, r);
  }
  toString = () => "expire()";
}

class Tick implements MoneyCommand {
  constructor(readonly slot: number) {}
  check = () => true;
  async run(m: RunModel, r: RunReal) {
    await r.system.tick(this.slot % m.replicas);
    await afterStep(m, r);
  }
  toString = () => `tick(replica ${this.slot})`;
}

class Kill implements MoneyCommand {
  constructor(readonly slot: number) {}
  check = () => true;
  async run(m: RunModel, r: RunReal) {
    const slot = this.slot % m.replicas;
    await r.system.kill(slot);
    m.money.orphan(slot);
    count(m, "killed");
    await afterStep(m, r);
  }
  toString = () => `kill(replica ${this.slot})`;
}

/** Mostly small requests (a lease covers many of them), some large ones. */
const tokens = (most: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: Math.ceil(most / 10) }) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: most }) },
  );

/** Every command, weighted towards requests. `kill` only where the system can kill a replica. */
export function moneyCommands(options: { kill: boolean; expire: boolean }) {
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
        .array(fc.record({ request: fc.nat(), usage }), { minLength: 1, maxLength: 4 })
        .map((picks) => new Finish(picks)),
    ),
    fc.nat().map((i) => new Release(i)),
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

/** Prices of a run: one with a cheaper cached input, one with a per-request fee. */
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
  ]);
