// The reference model of the money path (docs/billing.md, docs/leases.md) in plain TypeScript, written from
// the rules and not from src/: budget windows of a key and of its account, each on its own calendar period in
// the billing time zone; billing modes (prepaid: the balance limits and is charged; budgeted: the windows
// alone, the balance untouched; both); requests that hold their worst case while they run and are charged at
// most that (billing.overage: absorb) when they end, nothing when released; prices per token with a cached
// input price and a per-request fee; reservations that expire and are charged all the same when their request
// settles late. It knows nothing of leases: whether a request came in on a lease or on a reservation of its
// own, it must fit, and what it holds must be covered in Redis (invariants.ts).

import { DateTime } from "luxon";
import type { Micros } from "../../../src/core/money.js";
import type { Period } from "../../../src/core/periods.js";

export type Mode = "prepaid" | "budgeted" | "both";
export type Scope = "key" | "account";

export interface WindowSpec {
  period: Period;
  budget: Micros;
}

/** Prices in µ₽ per million tokens; the fee in µ₽ per request the model server answers without an error. */
export interface Price {
  name: string;
  input: Micros;
  cachedInput: Micros;
  output: Micros;
  perRequest: Micros;
}

/** What the model server reports for a request, and its status. */
export interface Usage {
  prompt: number;
  /** Of the prompt tokens, those served from the cache. */
  cached: number;
  completion: number;
  status: number;
}

export class ModelWindow {
  spent: Micros;
  /** Charged in the current period by requests whose reservation had expired (nothing held them). */
  late: Micros = 0;
  /**
   * The most spent + held may reach in the current period: the budget, or more when the operator set the
   * window below what was already spent and held (refreshed at each change and roll-over, invariants.ts).
   */
  ceiling: number;
  /** Set or rolled over since the last check: its ceiling is to be read again. */
  fresh = true;

  constructor(
    readonly period: Period,
    readonly budget: Micros | null,
    public start: number,
    spent = 0,
  ) {
    this.spent = spent;
    this.ceiling = budget ?? Number.POSITIVE_INFINITY;
  }
}

export class ModelKey {
  /** The key's windows; a key without any tracks its spent amount per month all the same. */
  readonly windows: ModelWindow[];
  charged: Micros = 0;

  constructor(
    readonly index: number,
    readonly id: string,
    specs: readonly WindowSpec[],
    now: number,
    zone: string,
  ) {
    this.windows =
      specs.length === 0
        ? [new ModelWindow("month", null, periodStart("month", now, zone))]
        : specs.map((spec) => new ModelWindow(spec.period, spec.budget, periodStart(spec.period, now, zone)));
  }
}

export interface ModelRequest {
  id: string;
  key: ModelKey;
  /** The replica's slot (0 or 1): a killed replica's slot gets a new process. */
  slot: number;
  price: Price;
  /** The most prompt tokens and completion tokens it may use; its worst case in µ₽. */
  promptMax: number;
  cap: number;
  worst: Micros;
  path: "lease" | "reserve";
  /** The real request's reservation, or the lease it holds part of (invariants.ts finds them in Redis). */
  reservationId: string | null;
  leaseId: string | null;
  /** Held until it settles; expired once its reservation (or lease) ran out; orphaned with a killed replica. */
  state: "held" | "expired";
  orphaned: boolean;
}

export type Verdict =
  | { ok: true }
  | { ok: false; code: "budget_exceeded"; scope: Scope; period: Period }
  | { ok: false; code: "insufficient_balance" };

/** One charge, for the ledger checks: when (its day in the billing zone), which key, how much. */
export interface Charge {
  at: number;
  key: ModelKey;
  cost: Micros;
}

export class MoneyModel {
  mode: Mode = "prepaid";
  accountWindows: ModelWindow[] = [];
  balance: Micros;
  readonly keys: ModelKey[] = [];
  readonly requests = new Map<string, ModelRequest>();
  readonly charges: Charge[] = [];
  /** Σ charged, and of it what the balance was charged (not while budgeted with windows) and late. */
  charged: Micros = 0;
  balanceCharged: Micros = 0;
  topUps: Micros = 0;
  lateToBalance: Micros = 0;
  /** How far what is held may exceed the balance: set when the operator makes the balance a limit. */
  balanceAllowance: Micros = 0;
  balanceFresh = false;

  constructor(
    readonly zone: string,
    readonly initialBalance: Micros,
  ) {
    this.balance = initialBalance;
  }

  /** Whether the balance limits the account (and is charged): always but for a budgeted one with windows. */
  get balanceLimits(): boolean {
    return !(this.mode === "budgeted" && this.accountWindows.length > 0);
  }

  /** Every window into its current period: a new period starts from nothing spent. */
  roll(now: number): void {
    for (const w of this.allWindows()) {
      const start = periodStart(w.period, now, this.zone);
      if (start > w.start) {
        Object.assign(w, { start, spent: 0, late: 0, fresh: true });
      }
    }
  }

  allWindows(): ModelWindow[] {
    return [...this.keys.flatMap((key) => key.windows), ...this.accountWindows];
  }

  /** What requests still to settle hold, for the key or (without one) for the whole account. */
  held(key?: ModelKey): Micros {
    let sum = 0;
    for (const r of this.requests.values()) {
      if (r.state === "held" && (key === undefined || r.key === key)) sum += r.worst;
    }
    return sum;
  }

  /** Whether a request of `key` that may cost `worst` fits, or the first limit that refuses it, in order. */
  verdict(key: ModelKey, worst: Micros): Verdict {
    const refuses = (w: ModelWindow, held: Micros) =>
      w.budget !== null && (w.spent >= w.budget || (worst > 0 && w.spent + held + worst > w.budget));
    for (const w of key.windows) {
      if (refuses(w, this.held(key)))
        return { ok: false, code: "budget_exceeded", scope: "key", period: w.period };
    }
    for (const w of this.accountWindows) {
      if (refuses(w, this.held()))
        return { ok: false, code: "budget_exceeded", scope: "account", period: w.period };
    }
    if (this.balanceLimits && (this.balance <= 0 || (worst > 0 && this.balance - this.held() < worst))) {
      return { ok: false, code: "insufficient_balance" };
    }
    return { ok: true };
  }

  /** Why a key cannot be created now: a window of the account used up, or a balance that limits it at 0. */
  keyRefusal(): string | null {
    if (this.accountWindows.some((w) => w.budget !== null && w.spent >= w.budget)) return "budget_exceeded";
    if (this.balanceLimits && this.balance <= 0) return "insufficient_balance";
    return null;
  }

  admit(request: ModelRequest): void {
    this.requests.set(request.id, request);
  }

  /** The request ended: charged `cost` (at most its worst case) in the periods current at `now`. */
  settle(request: ModelRequest, cost: Micros, now: number): void {
    this.requests.delete(request.id);
    this.roll(now);
    const late = request.state === "expired";
    const windows = [...request.key.windows, ...this.accountWindows];
    for (const w of windows) {
      w.spent += cost;
      if (late) w.late += cost;
    }
    request.key.charged += cost;
    this.charged += cost;
    if (this.balanceLimits) {
      this.balance -= cost;
      this.balanceCharged += cost;
      if (late) this.lateToBalance += cost;
    }
    if (cost > 0) this.charges.push({ at: now, key: request.key, cost });
  }

  /** The clock passed every reservation's and lease's expiry: nothing is held any more. */
  expireAll(): void {
    for (const [id, r] of this.requests) {
      if (r.orphaned) this.requests.delete(id);
      else r.state = "expired";
    }
  }

  /** A replica died: its requests never settle, and what they hold stays held until it expires. */
  orphan(slot: number): void {
    for (const r of this.requests.values()) if (r.slot === slot) r.orphaned = true;
  }

  /**
   * The operator sets the account's mode and windows: a window of a period the account had keeps its spent
   * amount; a new one starts with what the account's keys were charged since its period began.
   */
  setAccount(mode: Mode, specs: readonly WindowSpec[], now: number): void {
    this.roll(now);
    const wasLimit = this.balanceLimits;
    const old = new Map(this.accountWindows.map((w) => [w.period, w]));
    this.accountWindows = specs.map((spec) => {
      const start = periodStart(spec.period, now, this.zone);
      const kept = old.get(spec.period);
      const spent = kept ? kept.spent : this.chargedSince(start);
      const window = new ModelWindow(spec.period, spec.budget, start, spent);
      if (kept) window.late = kept.late;
      return window;
    });
    this.mode = mode;
    if (this.balanceLimits && !wasLimit) this.balanceFresh = true;
  }

  topUp(amount: Micros): void {
    this.balance += amount;
    this.topUps += amount;
  }

  chargedSince(start: number, key?: ModelKey): Micros {
    return this.charges
      .filter((c) => c.at >= start && (key === undefined || c.key === key))
      .reduce((sum, c) => sum + c.cost, 0);
  }
}

/** The start of the period `now` is in, in `zone`: days at midnight, weeks on Monday, months on the 1st. */
export function periodStart(period: Period, now: number, zone: string): number {
  return DateTime.fromMillis(now, { zone }).startOf(period).toMillis();
}

/** The next start of a period after `now`. */
export function nextPeriodStart(period: Period, now: number, zone: string): number {
  return DateTime.fromMillis(now, { zone })
    .startOf(period)
    .plus({ [`${period}s`]: 1 })
    .toMillis();
}

const MILLION = 1_000_000n;
const ceilMillions = (total: bigint) => Number((total + MILLION - 1n) / MILLION);

/** The most a request may cost: every prompt token at the dearest prompt price, every completion token, the fee. */
export function worstCase(price: Price, promptMax: number, cap: number): Micros {
  const prompt = BigInt(Math.max(price.input, price.cachedInput));
  return ceilMillions(BigInt(promptMax) * prompt + BigInt(cap) * BigInt(price.output)) + price.perRequest;
}

/**
 * What a reported request costs: uncached prompt tokens at input, cached ones at cachedInput, completion
 * tokens at output, rounded up once to the µ₽, plus the fee unless the server answered with an error; never
 * more than was held for it.
 */
export function costOf(price: Price, usage: Usage, worst: Micros): Micros {
  const tokens =
    BigInt(usage.prompt - usage.cached) * BigInt(price.input) +
    BigInt(usage.cached) * BigInt(price.cachedInput) +
    BigInt(usage.completion) * BigInt(price.output);
  const cost = ceilMillions(tokens) + (usage.status < 400 ? price.perRequest : 0);
  return Math.min(cost, worst);
}
