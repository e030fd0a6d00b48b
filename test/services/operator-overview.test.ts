// The operator's overview over the suite's Redis: totals of every account (balances, this month's requests
// and spend from the month hashes), search by id or name, sorting and paging; bad paging refused.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OperatorOverviewService } from "../../src/services/operator-overview.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let service: OperatorOverviewService;

beforeEach(async () => {
  store = await openStore();
  service = new OperatorOverviewService(store.stores);
  await store.accountService.create({ id: "acme", name: "Acme Corp", balance: "100" }, ACTOR);
  await store.accountService.create({ id: "globex", balance: "0.000001" }, ACTOR);
  await store.accountService.create({ id: "initech", name: "Initech", balance: "7.5" }, ACTOR);
  // This month (2026-11) and last month's, which does not count.
  await store.redis.hset(store.redisKeys.month("acme", "2026-11"), { requests: 3, cost: 1_000_001 });
  await store.redis.hset(store.redisKeys.month("initech", "2026-11"), { requests: 1, cost: 2_000_000 });
  await store.redis.hset(store.redisKeys.month("globex", "2026-10"), { requests: 9, cost: 9_000_000 });
});
afterEach(() => store.close());

describe("OperatorOverviewService", () => {
  it("totals every account's balance and this month's spend, exact to the micro-ruble", async () => {
    const overview = await service.overview({ offset: 0, limit: 50 });
    expect(overview).toMatchObject({
      month: "2026-11",
      timezone: "UTC",
      totals: { accounts: 3, balance: 107.500001, month_requests: 4, month_cost: 3.000001 },
      matching: 3,
    });
    expect(overview.accounts.map((row) => [row.account.id, row.month])).toEqual([
      ["acme", { requests: 3, cost: 1_000_001 }],
      ["globex", { requests: 0, cost: 0 }],
      ["initech", { requests: 1, cost: 2_000_000 }],
    ]);
  });

  it("finds accounts by part of the id or name, whatever the case, keeping the totals of all", async () => {
    const found = await service.overview({ q: "CORP", offset: 0, limit: 50 });
    expect(found.matching).toBe(1);
    expect(found.accounts.map((row) => row.account.id)).toEqual(["acme"]);
    expect(found.totals.accounts).toBe(3);
    expect(
      (await service.overview({ q: "ni", offset: 0, limit: 50 })).accounts.map((r) => r.account.id),
    ).toEqual(["initech"]);
  });

  it("sorts by balance or spend and pages", async () => {
    const bySpend = await service.overview({ sort: "spend", offset: 0, limit: 2 });
    expect(bySpend.accounts.map((r) => r.account.id)).toEqual(["initech", "acme"]);
    const next = await service.overview({ sort: "spend", offset: 2, limit: 2 });
    expect(next.accounts.map((r) => r.account.id)).toEqual(["globex"]);
    const byBalance = await service.overview({ sort: "balance", offset: 0, limit: 3 });
    expect(byBalance.accounts.map((r) => r.account.id)).toEqual(["acme", "initech", "globex"]);
  });

  it("tells how long each listed account's oldest alert event has waited for delivery", async () => {
    // Creating a key emits key.created; no delivery worker runs here, so it waits.
    await store.keyService.create({ accountId: "initech", name: "k" }, ACTOR);
    const overview = await service.overview({ offset: 0, limit: 50 });
    expect(overview.accounts.map((row) => [row.account.id, row.undeliveredSince])).toEqual([
      ["acme", null],
      ["globex", null],
      ["initech", store.clock.now()],
    ]);
  });

  it("refuses paging out of range, naming it", async () => {
    await expect(service.overview({ offset: -1, limit: 5 })).rejects.toThrow(
      "offset must be a whole number from 0 on; got -1",
    );
    await expect(service.overview({ offset: 0, limit: 201 })).rejects.toThrow(
      "limit must be a whole number from 1 to 200; got 201",
    );
  });
});
