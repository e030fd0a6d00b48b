// The budget gauges of keys, filled at scrape time: each key's budget and what remains of it as of its
// last settled request, the whole budget again once its period has ended, and no series for a key
// without a budget. Read from a real prom-client registry.

import { Gauge, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { KeyBudgets } from "../../src/observability/key-budgets.js";
import { TestClock } from "../helpers/clock.js";

function gauges(budgets: KeyBudgets) {
  const registry = new Registry();
  const labelNames = ["account", "key_id", "key_name", "period"];
  const budget = new Gauge({ name: "budget", help: "b", labelNames, registers: [registry] });
  const remaining = new Gauge({ name: "remaining", help: "r", labelNames, registers: [registry] });
  return {
    async read() {
      budgets.collectBudget(budget);
      budgets.collectRemaining(remaining);
      const text = await registry.metrics();
      return text.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    },
  };
}

describe("KeyBudgets", () => {
  it("shows each key's budget and what remains of it, in rubles", async () => {
    const clock = new TestClock();
    const budgets = new KeyBudgets(clock.now);
    budgets.set("acme", "key_a", "prod", [
      { period: "month", budget: 5_000_000, spent: 1_250_000, resetAt: clock.now() + 1000 },
    ]);
    budgets.set("acme", "key_b", "dev", [
      { period: "month", budget: 1_000_000, spent: 1_500_000, resetAt: clock.now() + 1000 },
    ]);
    expect(await gauges(budgets).read()).toEqual([
      'budget{account="acme",key_id="key_a",key_name="prod",period="month"} 5',
      'budget{account="acme",key_id="key_b",key_name="dev",period="month"} 1',
      'remaining{account="acme",key_id="key_a",key_name="prod",period="month"} 3.75',
      // Spent past the budget (a credible overage): nothing remains, never less.
      'remaining{account="acme",key_id="key_b",key_name="dev",period="month"} 0',
    ]);
  });

  it("shows the whole budget remaining once the period has ended, without waiting for a request", async () => {
    const clock = new TestClock();
    const budgets = new KeyBudgets(clock.now);
    budgets.set("acme", "key_a", "prod", [
      { period: "month", budget: 5_000_000, spent: 5_000_000, resetAt: clock.now() + 1000 },
    ]);
    const read = gauges(budgets).read;
    expect(await read()).toContain(
      'remaining{account="acme",key_id="key_a",key_name="prod",period="month"} 0',
    );
    clock.advance(1000);
    expect(await read()).toContain(
      'remaining{account="acme",key_id="key_a",key_name="prod",period="month"} 5',
    );
  });

  it("keeps one series per key under its latest name, and none once the key has no budget", async () => {
    const clock = new TestClock();
    const budgets = new KeyBudgets(clock.now);
    budgets.set("acme", "key_a", "old name", [
      { period: "month", budget: 1_000_000, spent: 0, resetAt: clock.now() + 1000 },
    ]);
    const read = gauges(budgets).read;
    await read();
    budgets.set("acme", "key_a", "new name", [
      { period: "month", budget: 2_000_000, spent: 0, resetAt: clock.now() + 1000 },
    ]);
    expect(await read()).toEqual([
      'budget{account="acme",key_id="key_a",key_name="new name",period="month"} 2',
      'remaining{account="acme",key_id="key_a",key_name="new name",period="month"} 2',
    ]);
    budgets.set("acme", "key_a", "new name", []);
    expect(await read()).toEqual([]);
  });

  it("keeps one series per window of a key, each with its own period and reset", async () => {
    const clock = new TestClock();
    const budgets = new KeyBudgets(clock.now);
    budgets.set("acme", "key_a", "prod", [
      { period: "day", budget: 1_000_000, spent: 1_000_000, resetAt: clock.now() + 1000 },
      { period: "month", budget: 20_000_000, spent: 5_000_000, resetAt: clock.now() + 5000 },
    ]);
    const read = gauges(budgets).read;
    expect(await read()).toEqual([
      'budget{account="acme",key_id="key_a",key_name="prod",period="day"} 1',
      'budget{account="acme",key_id="key_a",key_name="prod",period="month"} 20',
      'remaining{account="acme",key_id="key_a",key_name="prod",period="day"} 0',
      'remaining{account="acme",key_id="key_a",key_name="prod",period="month"} 15',
    ]);
    clock.advance(1000);
    expect(await read()).toContain('remaining{account="acme",key_id="key_a",key_name="prod",period="day"} 1');
    expect(await read()).toContain(
      'remaining{account="acme",key_id="key_a",key_name="prod",period="month"} 15',
    );
  });
});
