// The settle script's call on its own: the latency field each request is counted in, and a batch that mixes
// accounts refused before anything reaches Redis. The script's guarantees are proven in billing-store.test.ts
// (requests with reservations) and lease-script.test.ts (leased requests).

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LATENCY_BUCKETS_MS, latencyField, type SettleInput } from "../../src/store/settle-script.js";
import { openStore, type TestStore } from "../helpers/store.js";

describe("latencyField", () => {
  it("counts a latency in the first bucket that holds it, and beyond the last in lat_le_inf", () => {
    expect(latencyField(0)).toBe("lat_le_50");
    expect(latencyField(50)).toBe("lat_le_50");
    expect(latencyField(50.5)).toBe("lat_le_100");
    expect(latencyField(LATENCY_BUCKETS_MS.at(-1) as number)).toBe("lat_le_300000");
    expect(latencyField(300_001)).toBe("lat_le_inf");
  });
});

describe("a settle call", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openStore();
  });
  afterEach(() => store.close());

  it("refuses settlements of another account than the call's, writing nothing", async () => {
    const now = store.clock.now();
    const input: SettleInput = {
      reservationId: "r1",
      logEntry: "{}",
      logEntryWithBodies: "",
      cost: 1,
      promptTokens: 0,
      completionTokens: 0,
      failed: false,
      estimated: false,
      latencyMs: 1,
      periods: store.calendar.at(now),
      day: store.calendar.dayOf(now),
      now,
    };
    await expect(
      store.billing.settleMany("acme", [{ ref: { accountId: "other", keyId: "k" }, input }]),
    ).rejects.toThrow("a settlement of account other cannot be made with account acme's");
    expect(await store.allKeys()).toEqual([]);
  });
});
