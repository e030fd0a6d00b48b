import { describe, expect, it } from "vitest";
import { callHook, type SettlementHooks } from "../../src/billing/settlement-hooks.js";

describe("callHook", () => {
  it("calls the hook named with the arguments given", () => {
    const calls: unknown[][] = [];
    const hooks: SettlementHooks = { waiting: (reason, settlements) => calls.push([reason, settlements]) };
    callHook(hooks, "waiting", "replica", 3);
    expect(calls).toEqual([["replica", 3]]);
  });

  it("does nothing for a hook nobody listens to", () => {
    const failed: string[] = [];
    callHook({ hookFailed: (hook) => failed.push(hook) }, "recovered", 10);
    expect(failed).toEqual([]);
  });

  it("reports a hook that throws to hookFailed and returns normally, so no settlement is lost to a metric", () => {
    const failed: [string, unknown][] = [];
    const boom = new Error("metric registry closed");
    const hooks: SettlementHooks = {
      pendingChanged: () => {
        throw boom;
      },
      hookFailed: (hook, error) => failed.push([hook, error]),
    };
    expect(() => callHook(hooks, "pendingChanged", 2)).not.toThrow();
    expect(failed).toEqual([["pendingChanged", boom]]);
  });
});
