// The settlement queue's wait is told once when it starts and once when it ends, however many settlements
// and retries it takes, on the queue's clock.

import { describe, expect, it } from "vitest";
import { SettlementWait } from "../../src/billing/settlement-wait.js";
import { TestClock } from "../helpers/clock.js";

describe("SettlementWait", () => {
  it("tells a wait once when it starts and once, with how long it took, when nothing waits any more", () => {
    const clock = new TestClock();
    const told: unknown[] = [];
    const wait = new SettlementWait(
      {
        waiting: (reason, n) => told.push(["waiting", reason, n]),
        recovered: (ms) => told.push(["recovered", ms]),
      },
      clock.now,
    );
    wait.update(0, "redis");
    wait.update(2, "replica");
    for (let i = 0; i < 10; i++) wait.update(3 + i, "redis");
    clock.advance(4500);
    wait.update(0, "redis");
    wait.update(0, "redis");
    wait.update(1, "redis");
    expect(told).toEqual([
      ["waiting", "replica", 2],
      ["recovered", 4500],
      ["waiting", "redis", 1],
    ]);
  });

  it("reports a hook that throws and carries on", () => {
    const failed: string[] = [];
    const wait = new SettlementWait(
      {
        waiting: () => {
          throw new Error("log write failed");
        },
        hookFailed: (hook) => failed.push(hook),
      },
      () => 0,
    );
    expect(() => wait.update(1, "redis")).not.toThrow();
    expect(failed).toEqual(["waiting"]);
  });
});
