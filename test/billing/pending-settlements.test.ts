// What the settlement queue still holds, by request (for GET /v1/requests/{id} before its settlement lands) and
// by account (what the books check must add to Redis' figures).

import { describe, expect, it } from "vitest";
import { PendingSettlements } from "../../src/billing/pending-settlements.js";
import { PeriodCalendar } from "../../src/core/periods.js";
import type { Settlement } from "../../src/store/billing/settle-script.js";

const NOW = Date.parse("2026-11-21T10:00:00Z");
const calendar = new PeriodCalendar("UTC");

function settlement(accountId: string, keyId: string, cost: number, requestId?: string): Settlement {
  return {
    ref: { accountId, keyId },
    reservationId: `res-${Math.random()}`,
    ...(requestId !== undefined && { requestId }),
    logEntry: "{}",
    logEntryWithBodies: "",
    model: null,
    cost,
    promptTokens: 1,
    completionTokens: 1,
    failed: false,
    estimated: false,
    latencyMs: 1,
    periods: calendar.at(NOW),
    day: calendar.dayOf(NOW),
    now: NOW,
  };
}

describe("pending settlements", () => {
  it("are counted and summed per account until removed", () => {
    const pending = new PendingSettlements();
    const a = settlement("acme", "k1", 100);
    const b = settlement("acme", "k2", 250);
    pending.add(a);
    pending.add(b);
    pending.add(settlement("other", "k3", 7));
    expect(pending.of("acme")).toEqual({ count: 2, cost: 350 });
    pending.remove(a);
    expect(pending.of("acme")).toEqual({ count: 1, cost: 250 });
    pending.remove(b);
    expect(pending.of("acme")).toEqual({ count: 0, cost: 0 });
    expect(pending.of("other")).toEqual({ count: 1, cost: 7 });
    pending.remove(settlement("nobody", "k", 5)); // never added: nothing changes
    expect(pending.of("nobody")).toEqual({ count: 0, cost: 0 });
  });

  it("are found by key and request id while held, the latest of a reused id winning", () => {
    const pending = new PendingSettlements();
    const first = settlement("acme", "k1", 1, "req-1");
    const again = settlement("acme", "k1", 2, "req-1"); // the client sent the same X-Request-Id again
    pending.add(first);
    expect(pending.request("k1", "req-1")).toBe(first);
    expect(pending.request("k2", "req-1")).toBeUndefined();
    pending.add(again);
    expect(pending.request("k1", "req-1")).toBe(again);
    pending.remove(first); // the older one's removal leaves the newer one's entry
    expect(pending.request("k1", "req-1")).toBe(again);
    pending.remove(again);
    expect(pending.request("k1", "req-1")).toBeUndefined();
  });

  it("hand out a copy of an account's figures, not the live ones", () => {
    const pending = new PendingSettlements();
    pending.add(settlement("acme", "k1", 10));
    const figures = pending.of("acme");
    figures.count = 99;
    expect(pending.of("acme")).toEqual({ count: 1, cost: 10 });
  });
});
