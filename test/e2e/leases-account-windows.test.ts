// Admission leases on a key without a budget of its own whose account has a budget window: two replicas and
// four clients sending back to back until refused, in the modes `both` (window and balance) and `budgeted`
// (the window alone). The account's window is never overspent, leases are granted in both modes, and the
// books reconcile: Σ the request lines' costs = the window's spent amount = Δ balance (`both`) while a
// budgeted account's balance is never charged. Issue 30's lease overspend: the window was ignored in `both`
// (36 ₽ spent against 20 ₽) and every lease call failed in `budgeted`.

import { afterEach, describe, expect, it } from "vitest";
import type { BillingMode } from "../../src/core/budget-windows.js";
import { BudgetService } from "../../src/services/budgets.js";
import { ACTOR } from "../helpers/actor.js";
import { PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { ADMIN, COST, chat, leases, WORST } from "../helpers/leases.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

let replicas: TestGateway[] = [];
let upstream: StubUpstream | undefined;

afterEach(async () => {
  for (const replica of replicas) await replica.close();
  replicas = [];
  await upstream?.close();
  upstream = undefined;
});

async function twoReplicas(): Promise<[TestGateway, TestGateway]> {
  upstream = await startStubUpstream({ tokenIntervalMs: 1 });
  const config = { pricing: PRICING, admin: { token: ADMIN } };
  const a = await startTestGateway({ upstreamUrl: upstream.url, config });
  replicas.push(a);
  const b = await startTestGateway({
    upstreamUrl: upstream.url,
    config: { ...config, redis: { prefix: a.config.redis.prefix } },
  });
  replicas.push(b);
  return [a, b];
}

/** Sends back to back until refused (or `most` requests); returns the statuses and refusals' codes. */
async function client(t: TestGateway, key: string, most: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < most; i++) {
    const res = await chat(t, key);
    const body = (await res.json()) as { error?: { code: string; window?: { scope: string } } };
    if (res.status === 200) {
      seen.push("200");
      continue;
    }
    seen.push(`${res.status} ${body.error?.code} ${body.error?.window?.scope ?? ""}`.trim());
    break;
  }
  return seen;
}

const micros = (rubles: number) => Math.round(rubles * 1e6);
/** The account's daily window: room for about 430 requests' costs, 90 worst cases (leases of 8 each). */
const WINDOW = 10_000_000;
const BALANCE = 1_000_000_000;

describe.each<BillingMode>(["both", "budgeted"])(
  "a key without a budget of its own, its account in mode %s with a daily window, two replicas",
  (mode) => {
    it("never overspends the account's window, grants leases, and reconciles", async () => {
      const [a, b] = await twoReplicas();
      const key = await a.newKey({ balance: String(BALANCE / 1e6) });
      await new BudgetService(a.store.stores).setAccountBudgets(
        "acme",
        { billing: mode, budgets: [{ period: "day", amount: WINDOW / 1e6 }] },
        ACTOR,
      );
      const runs = await Promise.all(
        [a, b, a, b].map((t) => client(t, key.value, Math.ceil(WINDOW / COST) + 10)),
      );
      for (const t of [a, b]) await t.gateway.settled();
      // Each client stops at its first refusal, which must be the account's window.
      for (const run of runs) expect(run.at(-1)).toBe("403 budget_exceeded account");
      expect(leases(a).book.admitted + leases(b).book.admitted).toBeGreaterThan(0);
      // With every lease given back, one client goes on until refused: only once the window cannot take
      // another worst case.
      runs.push(await client(a, key.value, Math.ceil(WINDOW / COST)));
      expect(runs.at(-1)?.at(-1)).toBe("403 budget_exceeded account");
      await a.gateway.settled();

      const account = await a.store.accounts.require("acme");
      const window = account.budgets[0];
      expect(window?.spent).toBeLessThanOrEqual(WINDOW);
      expect(WINDOW - (window?.spent ?? 0)).toBeLessThan(WORST);

      const lines = [a, b].flatMap((t) => t.logs.filter((line) => line.msg === "request"));
      const charged = lines.reduce((sum, line) => sum + micros(line.cost_rub as number), 0);
      expect(lines.filter((line) => line.status === 200)).toHaveLength(
        runs.flat().filter((s) => s === "200").length,
      );
      expect(charged).toBe(window?.spent);
      expect(account.balance).toBe(mode === "both" ? BALANCE - charged : BALANCE);
      expect(await a.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
      // A lease call that failed would have been an error line.
      expect([a, b].flatMap((t) => t.logs.filter((line) => (line.level as number) >= 50))).toEqual([]);
    });
  },
);
