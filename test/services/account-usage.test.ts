// An account's usage overview over the suite's Redis: the model shares of a key's day (adding up to its
// totals, the days before by-model counters went to "no model"), the report's days, keys and models by spend,
// totals for today, this month and the range, its default range (this month), and the requests of a range.
// The counters are written as the settle script writes them; that the script does is in settle-script.test.ts.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AccountUsageService, mergeShares, modelShares } from "../../src/services/account-usage.js";
import { AccountUsage } from "../../src/services/usage-schema.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

describe("modelShares", () => {
  it("splits a key's day by model, with the other models apart and what is not covered under none", () => {
    const shares = modelShares({
      lat_le_100: 5,
      prompt_tokens: 40,
      cached_tokens: 25,
      completion_tokens: 9,
      cost: 3_000,
      "m:llama3:8b:requests": 2,
      "m:llama3:8b:cost": 2_000,
      "m:llama3:8b:prompt_tokens": 30,
      "m:llama3:8b:cached_tokens": 20,
      "m:llama3:8b:completion_tokens": 9,
      "mx:requests": 1,
      "mx:cost": 500,
      "m::requests": 1,
      "m:odd:unknown_counter": 7,
    });
    expect(Object.fromEntries(shares)).toEqual({
      "m:llama3:8b:": {
        requests: 2,
        cost: 2_000,
        prompt_tokens: 30,
        cached_tokens: 20,
        completion_tokens: 9,
      },
      "mx:": { requests: 1, cost: 500, prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0 },
      // One request named none; one and 500 µ₽ and 10 tokens were counted before models were.
      "m::": { requests: 2, cost: 500, prompt_tokens: 10, cached_tokens: 5, completion_tokens: 0 },
    });
  });

  it("gives a day of old counters entirely to none, and nothing to a day without requests", () => {
    expect(Object.fromEntries(modelShares({ lat_le_50: 3, cost: 9 }))).toEqual({
      "m::": { requests: 3, cost: 9, prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0 },
    });
    expect(modelShares({}).size).toBe(0);
  });

  it("adds up shares of several keys or days prefix by prefix", () => {
    const a = modelShares({ lat_le_50: 1, cost: 2, "m:x:requests": 1, "m:x:cost": 2 });
    const b = modelShares({
      lat_le_50: 2,
      cost: 5,
      "m:x:requests": 1,
      "m:x:cost": 1,
      "m:y:requests": 1,
      "m:y:cost": 4,
    });
    expect(Object.fromEntries(mergeShares([a, b]))).toEqual({
      "m:x:": { requests: 2, cost: 3, prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0 },
      "m:y:": { requests: 1, cost: 4, prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0 },
    });
  });
});

describe("AccountUsageService", () => {
  let store: TestStore;
  let service: AccountUsageService;
  let keyA: string;
  let keyB: string;

  beforeEach(async () => {
    // 2026-11-21 10:00 UTC: this month is November, today the 21st.
    store = await openStore();
    service = new AccountUsageService(store.stores);
    await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
    keyA = (await store.keyService.create({ accountId: "acme", name: "prod" }, ACTOR)).record.id;
    keyB = (await store.keyService.create({ accountId: "acme", name: "dev" }, ACTOR)).record.id;
  });
  afterEach(() => store.close());

  const day = (keyId: string, date: string, counters: Record<string, number>) =>
    store.redis.hset(store.redisKeys.usage("acme", keyId, date), counters);

  it("reports days by key and by model, totals for today, this month and the range, to the micro-ruble", async () => {
    await day(keyA, "2026-11-21", {
      lat_le_100: 2,
      prompt_tokens: 30,
      cached_tokens: 16,
      completion_tokens: 10,
      cost: 1_234_567,
      errors: 1,
      "m:llama:requests": 2,
      "m:llama:cost": 1_234_567,
      "m:llama:prompt_tokens": 30,
      "m:llama:cached_tokens": 16,
      "m:llama:completion_tokens": 10,
    });
    await day(keyB, "2026-11-21", { lat_le_50: 1, cost: 1, "m:bge:requests": 1, "m:bge:cost": 1 });
    await day(keyB, "2026-11-02", {
      lat_le_50: 4,
      cost: 3_000_000,
      "m:llama:requests": 4,
      "m:llama:cost": 3_000_000,
    });
    // October: in neither the month nor the default range.
    await day(keyA, "2026-10-31", { lat_le_50: 9, cost: 9_000_000 });

    const report = await service.report("acme");
    expect(report).toMatchObject({
      account_id: "acme",
      timezone: "UTC",
      from: "2026-11-01",
      to: "2026-11-21",
      today: "2026-11-21",
      month: "2026-11",
    });
    expect(report.days).toHaveLength(21);
    expect(report.totals.today).toEqual({
      requests: 3,
      prompt_tokens: 30,
      cached_tokens: 16,
      completion_tokens: 10,
      cost: 1.234568,
      errors: 1,
    });
    expect(report.totals.month).toMatchObject({ requests: 7, cost: 4.234568 });
    expect(report.totals.range).toEqual(report.totals.month);
    const today = report.days.at(-1);
    expect(today?.by_key.map((k) => [k.name, k.requests, k.cost])).toEqual([
      ["prod", 2, 1.234567],
      ["dev", 1, 0.000001],
    ]);
    expect(today?.by_model.map((m) => [m.model, m.requests, m.cached_tokens, m.cost])).toEqual([
      ["llama", 2, 16, 1.234567],
      ["bge", 1, 0, 0.000001],
    ]);
    expect(report.keys.map((k) => [k.key_id, k.requests, k.cost])).toEqual([
      [keyB, 5, 3.000001],
      [keyA, 2, 1.234567],
    ]);
    expect(report.models.map((m) => [m.model, m.other, m.requests, m.cost])).toEqual([
      ["llama", false, 6, 4.234567],
      ["bge", false, 1, 0.000001],
    ]);
    // Exactly what its schema describes: parsing leaves out any field the schema does not name.
    expect(AccountUsage.parse(report)).toEqual(report);
  });

  it("keeps this month's and today's totals whatever range is asked", async () => {
    await day(keyA, "2026-10-31", { lat_le_50: 9, cost: 9_000_000 });
    await day(keyA, "2026-11-21", { lat_le_50: 1, cost: 1 });
    const october = await service.report("acme", "2026-10-01", "2026-10-31");
    expect(october.totals.range).toMatchObject({ requests: 9, cost: 9 });
    expect(october.totals.month).toMatchObject({ requests: 1, cost: 0.000001 });
    expect(october.totals.today).toMatchObject({ requests: 1 });
    // Unattributed counters (before models were counted) show as no model.
    expect(october.models).toEqual([
      {
        model: null,
        other: false,
        requests: 9,
        prompt_tokens: 0,
        cached_tokens: 0,
        completion_tokens: 0,
        cost: 9,
      },
    ]);
    // `to` alone: its month.
    expect(await service.report("acme", undefined, "2026-10-15")).toMatchObject({
      from: "2026-10-01",
      to: "2026-10-15",
    });
  });

  it("refuses a bad range and an unknown account, naming what is wrong", async () => {
    await expect(service.report("acme", "2026-11-05", "2026-11-01")).rejects.toThrow(
      "from (2026-11-05) must not be after to (2026-11-01)",
    );
    await expect(service.report("acme", "yesterday")).rejects.toThrow(
      'from must be a date as YYYY-MM-DD; got "yesterday"',
    );
    await expect(service.report("acme", "2024-01-01", "2026-11-21")).rejects.toThrow("at most 366 days");
    await expect(service.report("nobody")).rejects.toMatchObject({ code: "account_not_found" });
  });

  it("lists the kept requests of every key in the range, newest first, each with its key", async () => {
    const entry = (id: string, at: string) => JSON.stringify({ request_id: id, at, cost: 0.5 });
    await store.redis.rpush(
      store.redisKeys.requestLog("acme", keyA),
      entry("a2", "2026-11-21T09:00:00.000Z"),
      entry("a1", "2026-10-31T23:59:59.999Z"),
    );
    await store.redis.rpush(
      store.redisKeys.requestLog("acme", keyB),
      entry("b1", "2026-11-20T12:00:00.000Z"),
    );
    const rows = await service.requests("acme");
    expect(rows.map((row) => [row.entry.request_id, row.key.name])).toEqual([
      ["a2", "prod"],
      ["b1", "dev"],
    ]);
    expect(
      (await service.requests("acme", "2026-10-31", "2026-10-31")).map((r) => r.entry.request_id),
    ).toEqual(["a1"]);
  });
});
