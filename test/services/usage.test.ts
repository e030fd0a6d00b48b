// Usage per day for the CLI's `usage` and the admin API: the range checked before anything is read, every
// day of it present, an account's keys summed exactly (revoked ones included), and a key of another
// account refused as absent. Counters are written as the settle script names them, on the suite's Redis.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_USAGE_DAYS, sumCounters, UsageService } from "../../src/services/usage.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let usage: UsageService;
beforeEach(async () => {
  store = await openStore({ timezone: "Europe/Moscow" });
  store.clock.set("2026-11-21T22:30:00Z"); // 01:30 on the 22nd in Moscow
  usage = new UsageService(store.stores);
});
afterEach(() => store.close());

describe("days", () => {
  it("are the last 30 up to today in the billing time zone when no range is given", () => {
    const days = usage.days();
    expect(days).toHaveLength(30);
    expect(days[0]).toBe("2026-10-24");
    expect(days.at(-1)).toBe("2026-11-22");
  });

  it("run from `from` to `to` inclusive, across month and year ends, or 30 days up to `to`", () => {
    expect(usage.days("2026-12-30", "2027-01-02")).toEqual([
      "2026-12-30",
      "2026-12-31",
      "2027-01-01",
      "2027-01-02",
    ]);
    expect(usage.days(undefined, "2026-03-01")[0]).toBe("2026-01-31");
    expect(usage.days("2026-11-22", undefined)).toEqual(["2026-11-22"]);
  });

  it("refuse a date that is not one, a range that ends before it starts, and one over the longest range", () => {
    for (const bad of ["2026-02-30", "2026-13-01", "21.11.2026", "2026-11-1", "", 20261121, null]) {
      expect(() => usage.days(bad, "2026-11-21")).toThrow(
        expect.objectContaining({
          code: "invalid_request",
          message: expect.stringMatching(/^from must be a date as YYYY-MM-DD/),
        }),
      );
    }
    expect(() => usage.days("2026-11-22", "2026-11-21")).toThrow(
      /from \(2026-11-22\) must not be after to \(2026-11-21\)/,
    );
    expect(usage.days("2026-01-01", "2026-12-31")).toHaveLength(365);
    expect(() => usage.days("2025-01-01", "2026-12-31")).toThrow(
      `from and to may span at most ${MAX_USAGE_DAYS} days; got 2025-01-01 to 2026-12-31`,
    );
  });
});

describe("daily", () => {
  async function counters(keyId: string, day: string, fields: Record<string, number>) {
    await store.redis.hset(store.redisKeys.usage("acme", keyId, day), fields);
  }

  it("sums an account's keys day by day, revoked keys included, with every day of the range present", async () => {
    await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
    const a = (await store.keyService.create({ accountId: "acme", name: "a" }, ACTOR)).record;
    const b = (await store.keyService.create({ accountId: "acme", name: "b" }, ACTOR)).record;
    await counters(a.id, "2026-11-20", { lat_le_100: 1, cost: 333_333, prompt_tokens: 10 });
    await counters(b.id, "2026-11-20", { lat_le_100: 2, cost: 666_667, prompt_tokens: 5 });
    await counters(b.id, "2026-11-22", { lat_le_inf: 1, errors: 1 });
    await store.keyService.revoke(b.id, ACTOR);

    const days = await usage.daily({ accountId: "acme", from: "2026-11-20", to: "2026-11-22" });
    expect(days).toEqual([
      { date: "2026-11-20", counters: { lat_le_100: 3, cost: 1_000_000, prompt_tokens: 15 } },
      { date: "2026-11-21", counters: {} },
      { date: "2026-11-22", counters: { lat_le_inf: 1, errors: 1 } },
    ]);
    const one = await usage.daily({ accountId: "acme", keyId: a.id, from: "2026-11-20", to: "2026-11-20" });
    expect(one).toEqual([
      { date: "2026-11-20", counters: { lat_le_100: 1, cost: 333_333, prompt_tokens: 10 } },
    ]);
  });

  it("refuses a key of another account as absent, a missing account, and bad input before reading", async () => {
    await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
    await store.accountService.create({ id: "other", balance: "100" }, ACTOR);
    const theirs = (await store.keyService.create({ accountId: "other", name: "x" }, ACTOR)).record;
    await expect(usage.daily({ accountId: "acme", keyId: theirs.id })).rejects.toMatchObject({
      code: "key_not_found",
    });
    await expect(usage.daily({ accountId: "ghost" })).rejects.toMatchObject({ code: "account_not_found" });
    await expect(usage.daily({ accountId: "acme", keyId: "not-a-key-id" })).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(usage.daily({ accountId: "Bad Id" })).rejects.toMatchObject({ code: "invalid_request" });
  });
});

describe("sumCounters", () => {
  it("adds field by field, keeping fields only some have", () => {
    expect(sumCounters([{ a: 1, b: 2 }, { b: 3, c: 4 }, {}])).toEqual({ a: 1, b: 5, c: 4 });
    expect(sumCounters([])).toEqual({});
  });
});
