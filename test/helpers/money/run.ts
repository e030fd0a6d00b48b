// One run of the money model: the commands (commands.ts) on a fresh account, then the end every run comes
// to — every request ends, every replica gives its leases back, what a killed replica held expires — and
// the checks of an idle account: nothing reserved, and Σ charged = Σ the daily counters = Σ the monthly
// counters = what the balance was charged.

import fc from "fast-check";
import { expect } from "vitest";
import type { RunModel, RunReal } from "./commands.js";
import { chargedDays, checkIdle, checkStep } from "./invariants.js";
import { costOf, type ModelRequest } from "./model.js";

export async function runMoney(
  model: RunModel,
  real: RunReal,
  commands: Iterable<fc.AsyncCommand<RunModel, RunReal>>,
): Promise<void> {
  await fc.asyncModelRun(() => ({ model, real }), commands);
  await drain(model, real);
}

async function drain(m: RunModel, { system, clock }: RunReal): Promise<void> {
  const { money } = m;
  const running = [...money.requests.values()].filter((r) => !r.orphaned);
  for (let slot = 0; slot < m.replicas; slot++) {
    const ending = running.filter((r) => r.slot === slot);
    if (ending.length === 0) continue;
    const usage = (r: ModelRequest) => ({ prompt: r.promptMax, cached: 0, completion: r.cap, status: 200 });
    await system.finish(
      slot,
      ending.map((r) => ({ id: r.id, usage: usage(r) })),
    );
    for (const r of ending) money.settle(r, costOf(r.price, usage(r), r.worst), clock.now());
  }
  await system.quiesce();
  if ((m.stats.killed ?? 0) > 0) {
    // What killed replicas held (their requests' reservations, their leases) comes back once it expires.
    clock.advance(m.ttlMs + 1);
    money.expireAll();
  }
  await system.purge();
  expect(system.unexpectedErrors(), "failed settlements and lease calls").toEqual([]);
  const snapshot = await system.snapshot();
  checkStep(money, snapshot, clock.now());
  checkIdle(money, snapshot);
  expect(await system.ledger(chargedDays(money)), "the daily and monthly counters").toEqual({
    daily: money.charged,
    monthly: money.charged,
  });
  expect(money.initialBalance + money.topUps - money.balance, "Δ balance").toBe(money.balanceCharged);
  if (system.loggedCharges)
    expect(system.loggedCharges(), "Σ the request log lines' costs").toBe(money.charged);
}
