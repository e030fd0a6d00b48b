// Budget windows through real HTTP on two gateway replicas with admission leases, sharing one Redis and one
// clock: 200 parallel requests against a key with a day and a month window in an account with a monthly
// window of its own — no window passed by a micro-ruble, on the first day (the key's day binds) nor on the
// next (the day rolled, the month stayed, and the account's month binds), and the request log, every window
// and the balance agree to the micro-ruble; a team that creates ten keys gets no more than its account's
// budget; a budgeted account needs no balance; clients read every window and the window that refused.

import { afterEach, describe, expect, it } from "vitest";
import { BudgetService } from "../../src/services/budgets.js";
import { ACTOR } from "../helpers/actor.js";
import { TestClock } from "../helpers/clock.js";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { ADMIN, COST, chat, leases, WORST, warm } from "../helpers/leases.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

let replicas: TestGateway[] = [];
let upstream: StubUpstream | undefined;

afterEach(async () => {
  for (const replica of replicas) await replica.close();
  replicas = [];
  await upstream?.close();
  upstream = undefined;
});

async function twoReplicas(clock: TestClock): Promise<[TestGateway, TestGateway]> {
  upstream ??= await startStubUpstream({ tokenIntervalMs: 1 });
  const config = { pricing: PRICING, admin: { token: ADMIN } };
  const a = await startTestGateway({ upstreamUrl: upstream.url, clock, config });
  replicas.push(a);
  const b = await startTestGateway({
    upstreamUrl: upstream.url,
    clock,
    config: { ...config, redis: { prefix: a.config.redis.prefix } },
  });
  replicas.push(b);
  return [a, b];
}

/** n worst cases, in rubles as the services take them. */
const worstCases = (n: number) => String((n * WORST) / 1e6);
const micros = (rubles: number) => Math.round(rubles * 1e6);

/** Fires `count` requests at once, alternating replicas and keys; each answer as "200" or "<status> <code>". */
async function burst(gateways: TestGateway[], keys: string[], count: number) {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await chat(gateways[i % gateways.length] as TestGateway, keys[i % keys.length] as string);
      const body = await json(res);
      return res.status === 200
        ? { status: "200" }
        : { status: `${res.status} ${body.error.code}`, error: body.error };
    }),
  );
}

function loggedCost(...gateways: TestGateway[]): number {
  return gateways
    .flatMap((t) => t.logs.filter((line) => line.msg === "request"))
    .reduce((sum, line) => sum + micros(Number(line.cost_rub)), 0);
}

async function settleAll(...gateways: TestGateway[]): Promise<void> {
  for (const gateway of gateways) await gateway.gateway.settled();
}

describe("budget windows on two replicas with leases", () => {
  it("hold every window of the key and of the account exactly under 200 parallel requests, day after day", async () => {
    const clock = new TestClock(Date.parse("2026-11-21T10:00:00.000Z"));
    const [a, b] = await twoReplicas(clock);
    const key = await a.newKey({
      balance: "1000",
      budgets: [`${worstCases(40)}/day`, `${worstCases(75)}/month`],
    });
    await new BudgetService(a.store.stores).setAccountBudgets(
      "acme",
      { billing: "both", budgets: [`${worstCases(60)}/month`] },
      ACTOR,
    );
    const limits = { keyDay: 40 * WORST, keyMonth: 75 * WORST, accountMonth: 60 * WORST };
    await warm(a, key.value);
    await warm(b, key.value);

    const check = async (binding: { scope: string; period: string }) => {
      await settleAll(a, b);
      const record = await a.store.keys.get({ accountId: "acme", keyId: key.id });
      const account = await a.store.accounts.require("acme");
      const [keyDay, keyMonth] = record?.budgets ?? [];
      const [accountMonth] = account.budgets;
      expect(keyDay?.spent).toBeLessThanOrEqual(limits.keyDay);
      expect(keyMonth?.spent).toBeLessThanOrEqual(limits.keyMonth);
      expect(accountMonth?.spent).toBeLessThanOrEqual(limits.accountMonth);
      // Every window charged each request once: the month windows hold all of it, Δ balance too.
      const logged = loggedCost(a, b);
      expect(keyMonth?.spent).toBe(logged);
      expect(accountMonth?.spent).toBe(logged);
      expect(account.balance).toBe(1_000_000_000 - logged);
      expect(await a.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
      return { keyDay: keyDay?.spent ?? -1, accountMonth: accountMonth?.spent ?? -1, binding };
    };

    const first = await burst([a, b], [key.value], 200);
    const refusals = first.filter((r) => r.status !== "200");
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.every((r) => r.status === "403 budget_exceeded")).toBe(true);
    expect(refusals.every((r) => r.error.window.scope === "key" && r.error.window.period === "day")).toBe(
      true,
    );
    const day1 = await check({ scope: "key", period: "day" });
    // A refusal means what was spent or held (leases included) left no room for a worst case, so at least
    // budget / WORST requests were served (as in test/e2e/leases.test.ts).
    expect(day1.keyDay / COST).toBeGreaterThanOrEqual(40);
    expect(leases(a).book.admitted + leases(b).book.admitted).toBeGreaterThan(2);

    // The next day: the key's day starts again, its month and the account's month go on.
    clock.set("2026-11-22T10:00:00.000Z");
    // The leases' facts are a day old now: warmed again, as in the first phase.
    await warm(a, key.value);
    await warm(b, key.value);
    const second = await burst([a, b], [key.value], 200);
    const refused = second.filter((r) => r.status !== "200");
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.status === "403 budget_exceeded")).toBe(true);
    expect(refused.some((r) => r.error.window.scope === "account" && r.error.window.period === "month")).toBe(
      true,
    );
    const day2 = await check({ scope: "account", period: "month" });
    expect(day2.keyDay).toBe(day2.accountMonth - day1.accountMonth);
    expect((day2.accountMonth - day1.accountMonth) / COST).toBeGreaterThanOrEqual(60 - 40);
  });

  it("give a team with ten keys no more than its account's budget, with no balance in the budgeted mode", async () => {
    const clock = new TestClock(Date.parse("2026-11-21T10:00:00.000Z"));
    const [a, b] = await twoReplicas(clock);
    await a.store.accountService.create({ id: "acme", balance: "0" }, ACTOR);
    await new BudgetService(a.store.stores).setAccountBudgets(
      "acme",
      { billing: "budgeted", budgets: [`${worstCases(25)}/month`] },
      ACTOR,
    );
    const keys: string[] = [];
    for (let i = 0; i < 10; i++) keys.push((await a.newKey()).value);
    const results = await burst([a, b], keys, 200);
    await settleAll(a, b);
    const refused = results.filter((r) => r.status !== "200");
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.status === "403 budget_exceeded")).toBe(true);
    expect(refused[0]?.error).toMatchObject({
      window: { scope: "account", period: "month" },
      message: expect.stringContaining("the account's monthly budget"),
    });
    const account = await a.store.accounts.require("acme");
    const spent = account.budgets[0]?.spent ?? -1;
    expect(spent).toBeLessThanOrEqual(25 * WORST);
    expect(spent / COST).toBeGreaterThanOrEqual(25);
    expect(spent).toBe(loggedCost(a, b));
    expect(spent % COST).toBe(0);
    expect(account.balance).toBe(0);

    // Each key and the account show where they stand.
    const balance = await json(await a.fetch("/v1/balance", { key: keys[0] }));
    expect(balance).toMatchObject({
      balance: 0,
      billing: "budgeted",
      budgets: [{ period: "month", amount: (25 * WORST) / 1e6, spent: spent / 1e6 }],
    });
    expect(balance.budgets[0].remaining).toBeCloseTo((25 * WORST - spent) / 1e6, 6);
    expect(balance.budgets[0].resets_at).toBe("2026-12-01T00:00:00.000Z");
  });
});

describe("a key's windows as its client sees them", () => {
  it("shows every window in budgets, and the first as the deprecated budget with its old names too", async () => {
    const clock = new TestClock(Date.parse("2026-11-21T10:00:00.000Z"));
    const t = await startTestGateway({ clock, config: { pricing: PRICING } });
    replicas.push(t);
    const key = await t.newKey({ budgets: ["1/day", "20/month"] });
    const view = await json(await t.fetch("/v1/key", { key: key.value }));
    expect(view.budgets).toEqual([
      { period: "day", amount: 1, spent: 0, remaining: 1, resets_at: "2026-11-22T00:00:00.000Z" },
      { period: "month", amount: 20, spent: 0, remaining: 20, resets_at: "2026-12-01T00:00:00.000Z" },
    ]);
    expect(view.budget).toEqual({ ...view.budgets[0], initial: 1, reset_at: "2026-11-22T00:00:00.000Z" });
  });
});
