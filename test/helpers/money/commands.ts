// The operations of the money model as fast-check commands (fc.commands, run by fc.asyncModelRun): create
// keys with any windows, set or clear the account's windows and switch its mode, top up, start requests of
// random worst cases on either replica, end them (alone or several in one batch) with random usage, let
// their clients leave, move the clock (a little, or to just before a day, week or month boundary in the
// billing zone), let every reservation and lease expire, tick a replica's leases, kill a replica. Each
// command works on the model and the system alike and checks the invariants after it (invariants.ts).
// Commands pick requests, keys and replicas by index modulo what exists when they run, so that a shrunk
// sequence stays valid. arbitraries.ts generates them.

import type fc from "fast-check";
import { expect } from "vitest";
import type { Micros } from "../../../src/core/money.js";
import type { Period } from "../../../src/core/periods.js";
import type { TestClock } from "../clock.js";
import { chargedDays, checkAdmission, checkStep } from "./invariants.js";
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

export type MoneyCommand = fc.AsyncCommand<RunModel, RunReal>;

const MOST_KEYS = 3;

async function afterStep(m: RunModel, r: RunReal): Promise<void> {
  count(m, "steps");
  checkStep(m.money, await r.system.snapshot(), r.clock.now());
  expect(await r.system.ledger(chargedDays(m.money)), "the daily and monthly counters").toEqual({
    daily: m.money.charged,
    monthly: m.money.charged,
  });
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

/** What a request used, in percent of what it could have, and the status it was answered with. */
export interface UsageShare {
  prompt: number;
  cached: number;
  completion: number;
  status: number;
}

function usageOf(request: ModelRequest, share: UsageShare): Usage {
  const prompt = Math.floor((share.prompt * request.promptMax) / 100);
  return {
    prompt,
    cached: Math.floor((share.cached * prompt) / 100),
    completion: Math.floor((share.completion * request.cap) / 100),
    status: share.status,
  };
}

export class CreateKey implements MoneyCommand {
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

export class SetAccount implements MoneyCommand {
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

export class TopUp implements MoneyCommand {
  constructor(readonly amount: Micros) {}
  check = () => true;
  async run(m: RunModel, r: RunReal) {
    await r.system.topUp(this.amount);
    m.money.topUp(this.amount);
    await afterStep(m, r);
  }
  toString = () => `topUp(${this.amount / 1e6})`;
}

export class Start implements MoneyCommand {
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
    const promptMax = r.system.promptTokens(this.promptMax);
    const worst = worstCase(price, promptMax, this.cap);
    const id = `r${m.nextId++}`;
    money.roll(r.clock.now());
    const admission = await r.system.start({
      id,
      slot,
      key: { accountId: r.system.accountId, keyId: key.id },
      price,
      promptMax,
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
        promptMax,
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

export class Finish implements MoneyCommand {
  /**
   * `lostReply`: the settle call is made in Redis but its reply lost (a cut connection), so the queue sends it
   * again; the second is a duplicate and charges nothing.
   */
  constructor(
    readonly picks: { request: number; usage: UsageShare }[],
    readonly lostReply = false,
  ) {}
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
      this.lostReply,
    );
    if (this.lostReply) count(m, "settlements sent again after a lost reply");
    const now = r.clock.now();
    for (const [request, u] of ended) {
      m.money.settle(request, costOf(request.price, u, request.worst), now);
      count(m, request.state === "expired" ? "settled late" : "settled");
    }
    await afterStep(m, r);
  }
  toString = () =>
    `finish(${this.picks.map((p) => `#${p.request} ${JSON.stringify(p.usage)}`).join("; ")}${this.lostReply ? "; reply lost" : ""})`;
}

/**
 * A failover lost a running request's reservation (what its reserve wrote never reached the promoted master):
 * nothing holds the request any more, and its settlement still charges what it cost.
 */
export class LoseReservation implements MoneyCommand {
  constructor(readonly request: number) {}
  check = (m: Readonly<RunModel>) => running(m as RunModel).some((r) => r.path === "reserve");
  async run(m: RunModel, r: RunReal) {
    if (!r.system.loseReservation) return;
    const all = running(m).filter((request) => request.path === "reserve");
    const request = all[this.request % all.length] as ModelRequest;
    await r.system.loseReservation(request.id);
    request.state = "expired";
    count(m, "reservations lost");
    await afterStep(m, r);
  }
  toString = () => `loseReservation(#${this.request})`;
}

export class Release implements MoneyCommand {
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

export class Advance implements MoneyCommand {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(m: RunModel, r: RunReal) {
    r.clock.advance(this.ms);
    await afterStep(m, r);
  }
  toString = () => `advance(${this.ms} ms)`;
}

export class ToBoundary implements MoneyCommand {
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

export class Expire implements MoneyCommand {
  check = () => true;
  async run(m: RunModel, r: RunReal) {
    r.clock.advance(m.ttlMs + 1);
    m.money.expireAll();
    count(m, "expired");
    await afterStep(m, r);
  }
  toString = () => "expire()";
}

export class Tick implements MoneyCommand {
  constructor(readonly slot: number) {}
  check = () => true;
  async run(m: RunModel, r: RunReal) {
    await r.system.tick(this.slot % m.replicas);
    await afterStep(m, r);
  }
  toString = () => `tick(replica ${this.slot})`;
}

export class Kill implements MoneyCommand {
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
