// How long a settlement no replica acknowledged is sent again, and which answer it is done with if given up.

import { describe, expect, it } from "vitest";
import { type Entry, overdue, unacknowledgedAgain } from "../../src/billing/settlement-entry.js";
import type { Settled, Settlement } from "../../src/store/billing/settle-script.js";

const entry: Entry = {
  settlement: { reservationId: "r1" } as Settlement,
  replyErrors: 0,
  alone: false,
  unreplicated: false,
  unacknowledged: false,
};
const made: Settled = { duplicate: false, balance: 9 };
const duplicate: Settled = { duplicate: true };

describe("a settlement no replica acknowledged", () => {
  it("keeps the time of its first unacknowledged answer, and that answer over later duplicates", () => {
    const first = unacknowledgedAgain(entry, made, 1000);
    expect(first).toMatchObject({ unreplicated: true, unacknowledged: true, unacknowledgedSince: 1000 });
    const again = unacknowledgedAgain(first, duplicate, 5000);
    expect(again.unacknowledgedSince).toBe(1000);
    expect(again.answer).toBe(made);
    // Made again (its first write was lost): that answer is what it was done with.
    const replayed = unacknowledgedAgain(again, { duplicate: false, balance: 7 }, 6000);
    expect(replayed.answer).toEqual({ duplicate: false, balance: 7 });
  });

  it("is overdue once billing.lateSettlementSeconds have passed since then, and never before an answer", () => {
    const first = unacknowledgedAgain(entry, made, 1000);
    expect(overdue(first, 60_999, 60_000)).toBe(false);
    expect(overdue(first, 61_000, 60_000)).toBe(true);
    expect(overdue(entry, Number.MAX_SAFE_INTEGER, 60_000)).toBe(false);
  });
});
