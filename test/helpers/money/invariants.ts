// What must hold after every step of the money model, read from Redis (snapshot.ts) against the model
// (model.ts): every window's spent amount and the balance are the model's to the µ₽ and each is Σ charged
// in its period; what is reserved adds up and covers every running request's worst case (its own
// reservation, or the lease it was admitted on); no window, balance or limit is exceeded by spent + reserved
// (leases included) — beyond what the operator set below it and what late settlements added; once idle
// nothing is reserved; and the ledger (daily and monthly counters) adds up to Σ charged.

import { DateTime } from "luxon";
import { expect } from "vitest";
import type { Period } from "../../../src/core/periods.js";
import { type ModelKey, type ModelWindow, type MoneyModel, periodStart, type Verdict } from "./model.js";
import type { Admission, Snapshot } from "./system.js";

const SUFFIXES = ["", "_2", "_3"];

interface RedisWindow {
  period: string;
  budget: number | null;
  spent: number;
}

/** A hash's windows, each brought into its current period as a script would (spent 0 in a new period). */
function windowsOf(
  hash: Record<string, string>,
  now: number,
  zone: string,
  trackFirst: boolean,
): RedisWindow[] {
  const windows: RedisWindow[] = [];
  SUFFIXES.forEach((suffix, slot) => {
    const budget = hash[`budget${suffix}`];
    if (budget === undefined && !(slot === 0 && trackFirst)) return;
    const period = (hash[`period${suffix}`] ?? "month") as Period;
    const stale = Number(hash[`period_start${suffix}`] ?? 0) < periodStart(period, now, zone);
    windows.push({
      period,
      budget: budget === undefined ? null : Number(budget),
      spent: stale ? 0 : Number(hash[`spent${suffix}`] ?? 0),
    });
  });
  return windows;
}

const modelWindows = (windows: readonly ModelWindow[]): RedisWindow[] =>
  windows.map((w) => ({ period: w.period, budget: w.budget, spent: w.spent }));

interface ReservationRecord {
  keyId: string;
  amount: number;
  lease: boolean;
}

function records(snapshot: Snapshot): Map<string, ReservationRecord> {
  const parsed = new Map<string, ReservationRecord>();
  for (const [id, value] of Object.entries(snapshot.records)) {
    if (value === "expired") continue;
    const [keyId, amount, tokens] = value.split(" ");
    parsed.set(id, { keyId: keyId as string, amount: Number(amount), lease: tokens === "L" });
  }
  return parsed;
}

const reservedOf = (snapshot: Snapshot, field: string) => Number(snapshot.reserved[field] ?? 0);

/** The lease's id without its generation: every lease a replica ever took on the key. */
const leaseFamily = (leaseId: string) => leaseId.slice(0, leaseId.lastIndexOf(":") + 1);

export function checkStep(model: MoneyModel, snapshot: Snapshot, now: number): void {
  model.roll(now);
  const { zone } = model;
  // Every window and the balance are the model's, and every window is Σ charged in its period.
  expect(windowsOf(snapshot.account, now, zone, false), "the account's windows").toEqual(
    modelWindows(model.accountWindows),
  );
  expect(snapshot.account.billing ?? "prepaid", "the billing mode").toBe(model.mode);
  expect(Number(snapshot.account.balance ?? 0), "the balance").toBe(model.balance);
  // Σ charged = Δ balance (where the balance is charged) = the replicas' own ledgers, at every step.
  expect(model.initialBalance + model.topUps - Number(snapshot.account.balance ?? 0), "Δ balance").toBe(
    model.balanceCharged,
  );
  expect(snapshot.settledLedger, "Σ the replicas' settlement ledgers").toBe(model.charged);
  for (const w of model.accountWindows) expect(w.spent).toBe(model.chargedSince(w.start));
  for (const key of model.keys) {
    expect(windowsOf(snapshot.keys[key.id] ?? {}, now, zone, true), `key ${key.index}'s windows`).toEqual(
      modelWindows(key.windows),
    );
    for (const w of key.windows) expect(w.spent).toBe(model.chargedSince(w.start, key));
  }

  // What is reserved adds up: per key, for the account, and the key's requests in flight.
  const held = records(snapshot);
  const byKey = new Map<string, { amount: number; requests: number }>();
  let total = 0;
  for (const r of held.values()) {
    const sum = byKey.get(r.keyId) ?? { amount: 0, requests: 0 };
    sum.amount += r.amount;
    if (!r.lease) sum.requests++;
    byKey.set(r.keyId, sum);
    total += r.amount;
  }
  expect(reservedOf(snapshot, "*"), "reserved for the account = Σ records").toBe(total);
  for (const key of model.keys) {
    const sum = byKey.get(key.id) ?? { amount: 0, requests: 0 };
    expect(reservedOf(snapshot, key.id), `reserved for key ${key.index} = Σ its records`).toBe(sum.amount);
    expect(reservedOf(snapshot, `${key.id}#n`), `key ${key.index}'s requests in flight`).toBe(sum.requests);
  }

  // Every running request's worst case is held in Redis: its own reservation, or within its lease.
  const leased = new Map<string, number>();
  for (const r of model.requests.values()) {
    if (r.state !== "held") continue;
    if (r.reservationId !== null && r.path === "reserve") {
      expect(held.get(r.reservationId), `request ${r.id}'s reservation`).toEqual({
        keyId: r.key.id,
        amount: r.worst,
        lease: false,
      });
    } else if (r.leaseId !== null) {
      const family = leaseFamily(r.leaseId);
      leased.set(family, (leased.get(family) ?? 0) + r.worst);
    }
  }
  for (const [family, holds] of leased) {
    let amount = 0;
    for (const [id, r] of held) if (r.lease && id.startsWith(family)) amount += r.amount;
    expect(amount, `the leases ${family}* cover their requests`).toBeGreaterThanOrEqual(holds);
  }
  for (const key of model.keys) {
    expect(reservedOf(snapshot, key.id)).toBeGreaterThanOrEqual(model.held(key));
  }
  expect(reservedOf(snapshot, "*")).toBeGreaterThanOrEqual(model.held());

  // No limit is exceeded by what is spent and reserved.
  const limit = (w: ModelWindow, reserved: number, what: string) => {
    if (w.budget === null) return;
    if (w.fresh) {
      w.ceiling = Math.max(w.budget, w.spent + reserved);
      w.fresh = false;
    }
    expect(w.spent + reserved, `${what} ${w.period} window: spent + reserved within it`).toBeLessThanOrEqual(
      w.ceiling + w.late,
    );
  };
  for (const key of model.keys)
    for (const w of key.windows) limit(w, reservedOf(snapshot, key.id), "the key's");
  for (const w of model.accountWindows) limit(w, reservedOf(snapshot, "*"), "the account's");
  if (model.balanceLimits) {
    const beyond = reservedOf(snapshot, "*") - model.balance;
    if (model.balanceFresh) {
      model.balanceAllowance = Math.max(0, beyond);
      model.balanceFresh = false;
    }
    expect(beyond, "reserved beyond the balance").toBeLessThanOrEqual(
      model.balanceAllowance + model.lateToBalance,
    );
  }
}

/**
 * A request the system admitted must fit by the model's rules (a lease never admits beyond them); one it
 * refused must be refused by the figures the reserve script read, and — when nothing but the model's own
 * running requests was reserved (no lease held any of it) — for the very limit the model names.
 */
export function checkAdmission(model: MoneyModel, key: ModelKey, worst: number, admission: Admission): void {
  const verdict = model.verdict(key, worst);
  if (admission.ok) {
    expect(verdict, `a request admitted on ${admission.path} must fit`).toEqual({ ok: true });
    return;
  }
  expect(["budget_exceeded", "insufficient_balance"]).toContain(admission.code);
  const scope = admission.code === "insufficient_balance" ? "account" : admission.scope;
  const held = scope === "key" ? model.held(key) : model.held();
  const figures = admission.figures;
  if (figures === null) {
    if (admission.exact)
      expect(verdict, "refused with nothing but running requests reserved").toEqual(refusal(admission));
    return;
  }
  const reserved = figures.reserved ?? 0;
  expect(reserved, "what the refusal counted as reserved covers the running requests").toBeGreaterThanOrEqual(
    held,
  );
  if (admission.code === "budget_exceeded") {
    const windows = scope === "key" ? key.windows : model.accountWindows;
    const window = windows.find((w) => w.period === admission.period);
    expect(window, `a ${scope} ${admission.period} window`).toBeDefined();
    const { budget, spent } = window as ModelWindow;
    expect({ budget: figures.budget, spent: figures.spent }).toEqual({ budget, spent });
    expect((budget as number) - spent < worst + reserved || spent >= (budget as number)).toBe(true);
  } else {
    expect(figures.balance).toBe(model.balance);
    expect(model.balance <= 0 || model.balance - reserved < worst).toBe(true);
  }
  if (reserved === held) {
    expect(verdict, "refused with nothing but running requests reserved").toEqual(refusal(admission));
  }
}

/** A refusal as the model's verdict states it. */
function refusal(admission: Extract<Admission, { ok: false }>): Verdict {
  const { code } = admission;
  return code === "insufficient_balance"
    ? { ok: false, code }
    : ({ ok: false, code, scope: admission.scope, period: admission.period } as Verdict);
}

/** Once every request has ended, every lease is given back and what expired released: nothing is reserved. */
export function checkIdle(model: MoneyModel, snapshot: Snapshot): void {
  expect(model.requests.size).toBe(0);
  expect(snapshot.reserved, "nothing reserved once idle").toEqual({});
  expect(
    Object.values(snapshot.records).filter((value) => value !== "expired"),
    "no reservation record once idle",
  ).toEqual([]);
}

/** The days (billing zone) on which the model charged something. */
export function chargedDays(model: MoneyModel): string[] {
  return [
    ...new Set(
      model.charges.map((c) => DateTime.fromMillis(c.at, { zone: model.zone }).toFormat("yyyy-LL-dd")),
    ),
  ];
}
