// The money path as a property, on the suite's Redis: random runs of reservations (random worst cases, keys
// with and without budgets, of every period), settlements one by one and in batches (costs from the charging
// policy over random and hostile usage reports, overage absorbed or charged, duplicates, reservations that
// expired first) and clock moves (across day, week and month boundaries), through the real BillingStore and
// its Lua scripts. A model of what the scripts must do runs alongside: every reply must agree with it, and
// after every run Σ charged = Δ balance = Σ the keys' daily cost counters, each key's spent amount is what
// its current period was charged, and nothing stays reserved. With overage absorbed, no budget or balance
// is ever exceeded but by what reservations that had expired charged when they settled late.

import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChargeFacts, charge, type OveragePolicy } from "../../../src/billing/charge.js";
import type { KeyRef } from "../../../src/core/key-ref.js";
import { formatRubles, type Micros } from "../../../src/core/money.js";
import type { Period } from "../../../src/core/periods.js";
import type { ModelPrice } from "../../../src/core/price.js";
import type { Settlement } from "../../../src/store/billing/settle-script.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
let runs = 0;

beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());

// --- What a run is made of ------------------------------------------------------------------------------

/** Any JSON value an upstream may report as a count, hostile ones included. */
const anyCount = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 5_000 }) },
  fc.constantFrom(Number.MAX_SAFE_INTEGER, 2 ** 53, -1, 0.5, 1e300, "12", null, true),
  fc.integer(),
);

/** The facts of a finished request but for its reservation and price, which the run supplies. */
const anyFacts = fc.record({
  usageClass: fc.constantFrom("generation" as const, "input-only" as const, "other" as const),
  processed: fc.boolean(),
  complete: fc.boolean(),
  status: fc.constantFrom(200, 200, 400, 500),
  reported: fc.record(
    { prompt: anyCount, completion: anyCount, total: anyCount, cacheRead: anyCount },
    { requiredKeys: [] },
  ),
  estimate: fc.record({ promptTokens: fc.nat({ max: 10_000 }), completionTokens: fc.nat({ max: 10_000 }) }),
  maxCompletionTokens: fc.option(fc.integer({ min: 1, max: 4_096 }), { nil: null }),
  maxPromptTokens: fc.integer({ min: 1, max: 100_000 }),
});
type RandomFacts = typeof anyFacts extends fc.Arbitrary<infer T> ? T : never;

const step = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("reserve" as const),
      key: fc.nat(),
      amount: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3_000_000 })),
      ttlMs: fc.integer({ min: 10_000, max: 600_000 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("settle" as const),
      // Indices (modulo their number) into the run's unsettled reservations, or, for a retry, into all of
      // them: one settled before is a duplicate, as is the same one twice in a batch.
      picks: fc.array(
        fc.record({
          reservation: fc.nat(),
          retry: fc.constantFrom(false, false, true),
          facts: anyFacts,
        }),
        { minLength: 1, maxLength: 4 },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 600_000 }) }),
  },
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

const scenario = fc.record({
  overage: fc.constantFrom<OveragePolicy>("absorb", "charge"),
  // Mid-day, and ten minutes before the end of a day, a week (Sunday) and a month (30 November).
  start: fc.constantFrom(
    "2026-11-21T10:00:00Z",
    "2026-11-21T23:50:00Z",
    "2026-11-29T23:50:00Z",
    "2026-11-30T23:50:00Z",
  ),
  balance: fc.integer({ min: 1, max: 20_000_000 }),
  keys: fc.array(
    fc.record({
      budget: fc.option(fc.integer({ min: 1, max: 10_000_000 }), { nil: null }),
      period: fc.constantFrom<Period>("day", "week", "month"),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  // µ₽ per million tokens: up to 5 000 ₽ per million.
  price: fc.record({ input: fc.nat({ max: 5_000_000_000 }), output: fc.nat({ max: 5_000_000_000 }) }),
  steps: fc.array(step, { minLength: 1, maxLength: 40 }),
  finalFacts: anyFacts,
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

// --- The model ------------------------------------------------------------------------------------------

interface ModelKey {
  ref: KeyRef;
  /** The hash of the key value requests present. */
  hash: string;
  budget: Micros | null;
  period: Period;
  spent: Micros;
  periodStart: number;
  reserved: Micros;
  /** Charged in the current period by late settlements (their reservation had expired and been released). */
  late: Micros;
  /** Charged in the current period beyond the reservations (overage: charge). */
  overage: Micros;
  /** Σ charged, whatever the period. */
  charged: Micros;
}

interface ModelReservation {
  id: string;
  key: ModelKey;
  amount: Micros;
  expiresAt: number;
  state: "held" | "expired" | "settled";
}

/** What the scripts must do, step by step, as docs/billing.md and the scripts' headers say. */
class MoneyModel {
  balance: Micros;
  reserved: Micros = 0;
  late: Micros = 0;
  overage: Micros = 0;
  charged: Micros = 0;
  readonly reservations: ModelReservation[] = [];
  readonly days = new Set<string>();

  constructor(
    balance: Micros,
    readonly keys: ModelKey[],
  ) {
    this.balance = balance;
  }

  /** Releases the reservations whose time is up; returns how many. */
  purge(now: number): number {
    let expired = 0;
    for (const r of this.reservations) {
      if (r.state !== "held" || r.expiresAt > now) continue;
      r.state = "expired";
      this.release(r);
      expired++;
    }
    return expired;
  }

  rollOver(key: ModelKey, now: number): void {
    const start = store.calendar.at(now)[key.period].start;
    if (start <= key.periodStart) return;
    Object.assign(key, { spent: 0, periodStart: start, late: 0, overage: 0 });
  }

  /** The refusal reserve must answer, or null when it must reserve. */
  refusal(key: ModelKey, amount: Micros): "budget_exceeded" | "insufficient_balance" | null {
    if (key.budget !== null) {
      if (key.spent >= key.budget || (amount > 0 && key.spent + key.reserved + amount > key.budget)) {
        return "budget_exceeded";
      }
    }
    if (this.balance <= 0 || (amount > 0 && this.balance - this.reserved < amount))
      return "insufficient_balance";
    return null;
  }

  hold(r: ModelReservation): void {
    this.reservations.push(r);
    r.key.reserved += r.amount;
    this.reserved += r.amount;
  }

  release(r: ModelReservation): void {
    r.key.reserved -= r.amount;
    this.reserved -= r.amount;
  }

  /** Settles `r` for `cost`; returns false for a duplicate. */
  settle(r: ModelReservation, cost: Micros, now: number): boolean {
    if (r.state === "settled") return false;
    if (r.state === "held") this.release(r);
    const late = r.state === "expired";
    r.state = "settled";
    this.rollOver(r.key, now);
    const beyond = Math.max(0, cost - r.amount);
    r.key.spent += cost;
    r.key.charged += cost;
    r.key.overage += beyond;
    this.balance -= cost;
    this.charged += cost;
    this.overage += beyond;
    if (late) {
      r.key.late += cost;
      this.late += cost;
    }
    return true;
  }

  /**
   * No budget or balance is exceeded but by what late settlements and charged overage added: what is spent
   * and held never passes the limit otherwise, as every charge fits in the reservation it replaces.
   */
  checkLimits(policy: OveragePolicy): void {
    if (policy === "absorb") expect(this.overage).toBe(0);
    for (const key of this.keys) {
      if (key.budget === null) continue;
      expect(key.spent + key.reserved).toBeLessThanOrEqual(key.budget + key.late + key.overage);
    }
    expect(this.balance - this.reserved).toBeGreaterThanOrEqual(-(this.late + this.overage));
  }
}

// --- A run ----------------------------------------------------------------------------------------------

async function setUp(s: Scenario): Promise<MoneyModel> {
  store.clock.set(s.start);
  const accountId = `money-${++runs}`;
  await store.accountService.create({ id: accountId, balance: formatRubles(s.balance) }, ACTOR);
  const keys: ModelKey[] = [];
  for (const { budget, period } of s.keys) {
    // A key without a budget keeps its spent amount per month.
    const limit = budget === null ? {} : { budget: formatRubles(budget), period };
    const { record } = await store.keyService.create({ accountId, name: "k", ...limit }, ACTOR);
    keys.push({
      ref: { accountId, keyId: record.id },
      hash: record.hash as string,
      budget,
      period: record.period,
      spent: record.spent,
      periodStart: record.periodStart,
      reserved: 0,
      late: 0,
      overage: 0,
      charged: 0,
    });
  }
  return new MoneyModel(s.balance, keys);
}

async function reserve(model: MoneyModel, s: Scenario, st: Extract<Step, { op: "reserve" }>) {
  const key = model.keys[st.key % model.keys.length] as ModelKey;
  const now = store.clock.now();
  const reservation: ModelReservation = {
    id: randomUUID(),
    key,
    amount: st.amount,
    expiresAt: now + st.ttlMs,
    state: "held",
  };
  const reply = await store.billing.reserve(key.ref, {
    tokens: 0,
    keyHash: key.hash,
    reservationId: reservation.id,
    amount: reservation.amount,
    now,
    periods: store.calendar.at(now),
    expiresAt: reservation.expiresAt,
    model: { kind: "none" },
  });
  const expired = model.purge(now);
  model.rollOver(key, now);
  const refusal = model.refusal(key, reservation.amount);
  expect(reply.expired).toBe(expired);
  if (refusal !== null) {
    expect(reply).toMatchObject({ ok: false, code: refusal });
    return;
  }
  model.hold(reservation);
  expect(reply).toMatchObject({
    ok: true,
    spent: key.spent,
    keyReserved: key.reserved,
    balance: model.balance,
    accountReserved: model.reserved,
  });
  model.checkLimits(s.overage);
}

async function settle(model: MoneyModel, s: Scenario, picks: { r: ModelReservation; facts: RandomFacts }[]) {
  const now = store.clock.now();
  const price: ModelPrice = {
    cachedInput: s.price.input,
    cacheWrite: s.price.input,
    perRequest: 0,
    ...s.price,
    maxOutputTokens: 4096,
    contextTokens: null,
    maxImageTokens: 4096,
    maxAudioTokens: 4096,
    maxVideoTokens: 16_384,
  };
  const costs = picks.map(({ r, facts }) => {
    const f: ChargeFacts = { ...facts, price, reserved: r.amount, overage: s.overage };
    const billed = charge(f);
    if (s.overage === "absorb") expect(billed.cost).toBeLessThanOrEqual(r.amount);
    return billed.cost;
  });
  const day = store.calendar.dayOf(now);
  const inputs = picks.map(
    ({ r }, i): Settlement => ({
      ref: r.key.ref,
      reservationId: r.id,
      logEntry: JSON.stringify({ request_id: r.id }),
      logEntryWithBodies: "",
      model: null,
      cost: costs[i] as Micros,
      promptTokens: 1,
      completionTokens: 1,
      failed: false,
      estimated: false,
      latencyMs: 10,
      periods: store.calendar.at(now),
      day,
      now,
    }),
  );
  const replies = await store.billing.settleMany(inputs[0]!.ref.accountId, inputs);
  picks.forEach(({ r }, i) => {
    const settled = model.settle(r, costs[i] as Micros, now);
    const reply = replies[i];
    if (!settled) {
      expect(reply).toEqual({ duplicate: true });
      return;
    }
    model.days.add(day);
    expect(reply).toMatchObject({ duplicate: false, balance: model.balance, spent: r.key.spent });
  });
  model.checkLimits(s.overage);
}

/** What Redis holds at the end of a run, against the model and against the sum of the charges. */
async function checkEnd(model: MoneyModel, s: Scenario): Promise<void> {
  const accountId = model.keys[0]!.ref.accountId;
  const account = await store.accounts.require(accountId);
  expect(account.balance).toBe(model.balance);
  expect(s.balance - account.balance).toBe(model.charged);
  expect(await store.billing.reserved(accountId)).toEqual({ account: 0, keys: {} });
  const days = [...model.days];
  const counters = await store.stores.usage.counters(
    accountId,
    model.keys.map((key) => key.ref.keyId),
    days,
  );
  for (const [k, key] of model.keys.entries()) {
    const record = await store.keys.get(key.ref);
    expect({ spent: record?.spent, periodStart: record?.periodStart }).toEqual({
      spent: key.spent,
      periodStart: key.periodStart,
    });
    const dailyCost = days.reduce((sum, _, d) => sum + (counters[d]?.[k]?.cost ?? 0), 0);
    expect(dailyCost).toBe(key.charged);
  }
  expect(model.keys.reduce((sum, key) => sum + key.charged, 0)).toBe(model.charged);
}

async function run(s: Scenario): Promise<void> {
  const model = await setUp(s);
  for (const st of s.steps) {
    if (st.op === "reserve") await reserve(model, s, st);
    else if (st.op === "advance") store.clock.advance(st.ms);
    else {
      const unsettled = model.reservations.filter((r) => r.state !== "settled");
      const picks = st.picks.flatMap(({ reservation, retry, facts }) => {
        const from = retry ? model.reservations : unsettled;
        return from.length === 0 ? [] : [{ r: from[reservation % from.length] as ModelReservation, facts }];
      });
      if (picks.length > 0) await settle(model, s, picks);
    }
  }
  // Every request ends some time: settle what is left, expired ones included (late, and charged all the same).
  const left = model.reservations.filter((r) => r.state !== "settled");
  for (let i = 0; i < left.length; i += 8) {
    await settle(
      model,
      s,
      left.slice(i, i + 8).map((r) => ({ r, facts: s.finalFacts })),
    );
  }
  await checkEnd(model, s);
}

describe("the money path on Redis, for any run of reservations, settlements and clock moves", () => {
  it("agrees with its model at every step; Σ charged = Δ spent = Δ balance; nothing stays reserved; limits hold", async () => {
    await fc.assert(fc.asyncProperty(scenario, run), { numRuns: 300 });
  });
});
