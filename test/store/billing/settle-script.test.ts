// The settle script's call on its own: the latency field each request is counted in, and a batch that mixes
// accounts refused before anything reaches Redis. The script's guarantees are proven in billing-store.test.ts
// (requests with reservations) and lease-script.test.ts (leased requests).

import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { modelShares } from "../../../src/services/account-usage.js";
import {
  LATENCY_BUCKETS_MS,
  latencyField,
  type Settlement,
  usageModel,
} from "../../../src/store/billing/settle-script.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

describe("latencyField", () => {
  it("counts a latency in the first bucket that holds it, and beyond the last in lat_le_inf", () => {
    expect(latencyField(0)).toBe("lat_le_50");
    expect(latencyField(50)).toBe("lat_le_50");
    expect(latencyField(50.5)).toBe("lat_le_100");
    expect(latencyField(LATENCY_BUCKETS_MS.at(-1) as number)).toBe("lat_le_300000");
    expect(latencyField(300_001)).toBe("lat_le_inf");
  });
});

describe("usageModel", () => {
  it("counts a model under its name, and none, an overlong name or one with control characters under none", () => {
    expect(usageModel("llama3:8b")).toBe("llama3:8b");
    expect(usageModel(null)).toBe("");
    expect(usageModel("m".repeat(128))).toBe("m".repeat(128));
    expect(usageModel("m".repeat(129))).toBe("");
    expect(usageModel("evil\nmodel")).toBe("");
    expect(usageModel("del\u007f")).toBe("");
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
    const input: Omit<Settlement, "ref"> = {
      reservationId: "r1",
      logEntry: "{}",
      logEntryWithBodies: "",
      model: null,
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
      store.billing.settleMany("acme", [{ ...input, ref: { accountId: "other", keyId: "k" } }]),
    ).rejects.toThrow("a settlement of account other cannot be made with account acme's");
    expect(await store.allKeys()).toEqual([]);
  });
});

describe("the usage a settlement counts", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openStore();
    await store.accountService.create({ id: "acme", balance: "1000" }, ACTOR);
  });
  afterEach(() => store.close());

  async function newKey() {
    const { record } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    return { accountId: "acme", keyId: record.id };
  }

  /** Settles a request that was never reserved, as a lease-less settlement of one request with a record. */
  async function settle(ref: { accountId: string; keyId: string }, fields: Partial<Omit<Settlement, "ref">>) {
    const now = store.clock.now();
    const reservationId = randomUUID();
    await store.billing.reserve(ref, {
      reservationId,
      amount: fields.cost ?? 0,
      tokens: 0,
      keyHash: (await store.keyService.show(ref.keyId)).hash as string,
      now,
      periods: store.calendar.at(now),
      expiresAt: now + 60_000,
      model: { kind: "none" },
    });
    const [settled] = await store.billing.settleMany("acme", [
      {
        ref,
        reservationId,
        logEntry: "{}",
        logEntryWithBodies: "",
        model: null,
        cost: 0,
        promptTokens: 0,
        completionTokens: 0,
        failed: false,
        estimated: false,
        latencyMs: 5,
        periods: store.calendar.at(now),
        day: store.calendar.dayOf(now),
        now,
        ...fields,
      },
    ]);
    expect(settled?.duplicate).toBe(false);
  }

  const usageOf = async (keyId: string) =>
    store.redis.hgetall(store.redisKeys.usage("acme", keyId, store.calendar.dayOf(store.clock.now())));

  it("counts requests, tokens and cost by model beside the day's totals, and the account's month", async () => {
    const ref = await newKey();
    await settle(ref, {
      model: "llama3:8b",
      cost: 1_500,
      promptTokens: 10,
      cachedTokens: 8,
      completionTokens: 20,
    });
    await settle(ref, { model: "llama3:8b", cost: 500, promptTokens: 1, completionTokens: 0 });
    await settle(ref, { model: "bge-m3", cost: 0, promptTokens: 7, completionTokens: 0 });
    await settle(ref, { model: null, promptTokens: 5, cachedTokens: 3 });
    await settle(ref, { model: null, cost: 0 });
    const usage = await usageOf(ref.keyId);
    expect(usage).toMatchObject({
      "m:llama3:8b:requests": "2",
      "m:llama3:8b:cost": "2000",
      "m:llama3:8b:prompt_tokens": "11",
      "m:llama3:8b:completion_tokens": "20",
      "m:llama3:8b:cached_tokens": "8",
      "m:bge-m3:requests": "1",
      "m:bge-m3:prompt_tokens": "7",
      cost: "2000",
      cached_tokens: "11",
    });
    expect(usage["m:bge-m3:cached_tokens"]).toBeUndefined();
    // A request without a model is what the totals have beyond the models' counters.
    expect(Object.keys(usage).some((field) => field.startsWith("m::"))).toBe(false);
    // Zero counts are not written.
    expect(usage["m:bge-m3:cost"]).toBeUndefined();
    const month = store.calendar.dayOf(store.clock.now()).slice(0, 7);
    expect(await store.redis.hgetall(store.redisKeys.month("acme", month))).toEqual({
      requests: "5",
      cost: "2000",
    });
    expect(await store.redis.ttl(store.redisKeys.month("acme", month))).toBeGreaterThan(0);
  });

  it("counts a model first seen in a full usage hash under the other models, so callers cannot grow it", async () => {
    const ref = await newKey();
    for (let i = 0; i < 70; i++)
      await settle(ref, { model: `model-${i}`, cost: 1, promptTokens: 1, completionTokens: 1 });
    const usage = await usageOf(ref.keyId);
    expect(Object.keys(usage).length).toBeLessThanOrEqual(256 + 5);
    const other = Number(usage["mx:requests"]);
    expect(other).toBeGreaterThan(0);
    // Every request is counted once, by its model or among the others.
    const named = Object.keys(usage).filter((field) => /^m:model-\d+:requests$/.test(field)).length;
    expect(named + other).toBe(70);
    expect(Number(usage["mx:cost"])).toBe(other);
    // A model already counted keeps being counted by name.
    await settle(ref, { model: "model-0", cost: 1 });
    expect((await usageOf(ref.keyId))["m:model-0:requests"]).toBe("2");
  });

  it("keeps the by-model shares adding up to the day's totals, whatever the mix", async () => {
    const ref = await newKey();
    const request = fc.record({
      model: fc.option(fc.constantFrom("a", "b:7b", "c/d", ""), { nil: null }),
      cost: fc.integer({ min: 0, max: 5_000_000 }),
      promptTokens: fc.integer({ min: 0, max: 100_000 }),
      completionTokens: fc.integer({ min: 0, max: 100_000 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 8 }), async (requests) => {
        await store.redis.del(
          store.redisKeys.usage("acme", ref.keyId, store.calendar.dayOf(store.clock.now())),
        );
        for (const fields of requests) await settle(ref, fields);
        const counters = Object.fromEntries(
          Object.entries(await usageOf(ref.keyId)).map(([field, value]) => [field, Number(value)]),
        );
        const shares = [...modelShares(counters).values()];
        const sum = (field: "requests" | "cost" | "prompt_tokens" | "completion_tokens") =>
          shares.reduce((total, share) => total + share[field], 0);
        expect(sum("requests")).toBe(requests.length);
        expect(sum("cost")).toBe(requests.reduce((total, r) => total + r.cost, 0));
        expect(sum("prompt_tokens")).toBe(counters.prompt_tokens ?? 0);
        expect(sum("completion_tokens")).toBe(counters.completion_tokens ?? 0);
      }),
      { numRuns: 25 },
    );
  });
});
