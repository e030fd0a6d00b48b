// The reserve script against a real Redis (reserve-5.lua through BillingStore.reserve): what it reserves on
// the key and the account, and each refusal with the figures it answers with.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseRubles } from "../../../src/core/money.js";
import { billingScripts } from "../../helpers/billing-scripts.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const rub = (text: string) => parseRubles(text, "test amount");

let store: TestStore;

beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

const { account, key, reserve, reserveInput, settleInput } = billingScripts(() => store);

describe("reserve", () => {
  it("reserves the amount on the key and the account and returns the key's metadata", async () => {
    await account("100");
    const { ref } = await key({ budget: "50", models: ["llama"] });
    const result = await reserve(ref, reserveInput(rub("10"), { model: { kind: "named", model: "llama" } }));
    expect(result).toMatchObject({
      ok: true,
      keyName: "test",
      logBodies: true,
      allowedModels: ["llama"],
      budget: rub("50"),
      spent: 0,
      keyReserved: rub("10"),
      balance: rub("100"),
      accountReserved: rub("10"),
      expired: 0,
    });
    expect(await store.billing.reserved("acme")).toEqual({
      account: rub("10"),
      keys: { [ref.keyId]: rub("10") },
    });
  });

  it("refuses a revoked key with key_revoked", async () => {
    await account();
    const { ref } = await key();
    await store.keys.revoke(ref, store.clock.now(), "{}");
    expect(await reserve(ref, reserveInput(1))).toMatchObject({
      ok: false,
      code: "key_revoked",
    });
  });

  it("refuses a key exactly at its expiry time with key_expired, and accepts it one millisecond before", async () => {
    await account();
    const { ref, record } = await key({ ttl: "15m" });
    store.clock.ms = (record.expiresAt as number) - 1;
    expect(await reserve(ref, reserveInput(1))).toMatchObject({ ok: true });
    store.clock.ms = record.expiresAt as number;
    expect(await reserve(ref, reserveInput(1))).toMatchObject({
      ok: false,
      code: "key_expired",
    });
  });

  it("answers invalid_api_key when the key record does not exist", async () => {
    await account();
    expect(
      await reserve({ accountId: "acme", keyId: "key_00000000000000000000" }, reserveInput(1)),
    ).toMatchObject({
      ok: false,
      code: "invalid_api_key",
    });
  });

  it("refuses a model outside the key's list, and a body without a model, but lets a request without a body pass", async () => {
    await account();
    const { ref } = await key({ models: ["a", "b"] });
    expect(await reserve(ref, reserveInput(1, { model: { kind: "named", model: "c" } }))).toMatchObject({
      ok: false,
      code: "model_not_allowed",
      allowedModels: ["a", "b"],
    });
    expect(await reserve(ref, reserveInput(1, { model: { kind: "unknown" } }))).toMatchObject({
      ok: false,
      code: "model_not_allowed",
    });
    expect(await reserve(ref, reserveInput(1, { model: { kind: "named", model: "b" } }))).toMatchObject({
      ok: true,
    });
    expect(await reserve(ref, reserveInput(0, { model: { kind: "none" } }))).toMatchObject({
      ok: true,
    });
  });

  it("lets a key without a model list use any model, or none", async () => {
    await account();
    const { ref } = await key();
    expect(await reserve(ref, reserveInput(1, { model: { kind: "unknown" } }))).toMatchObject({
      ok: true,
    });
    expect(await reserve(ref, reserveInput(1, { model: { kind: "named", model: "x" } }))).toMatchObject({
      ok: true,
    });
  });

  it("accepts a worst case that exactly fills the budget and refuses one micro-ruble more", async () => {
    await account("100");
    const { ref } = await key({ budget: "10" });
    expect(await reserve(ref, reserveInput(rub("10") + 1))).toMatchObject({
      ok: false,
      code: "budget_exceeded",
      budget: rub("10"),
      spent: 0,
      keyReserved: 0,
      period: "month",
    });
    expect(await reserve(ref, reserveInput(rub("10")))).toMatchObject({
      ok: true,
      keyReserved: rub("10"),
    });
    // Nothing is left while that reservation is held.
    expect(await reserve(ref, reserveInput(1))).toMatchObject({
      ok: false,
      code: "budget_exceeded",
    });
  });

  it("refuses even a free request once the budget is used up", async () => {
    await account("100");
    const { ref } = await key({ budget: "1" });
    const first = reserveInput(rub("1"));
    await reserve(ref, first);
    await store.billing.settle({ ...settleInput(first.reservationId, rub("1")), ref });
    expect(await reserve(ref, reserveInput(0))).toMatchObject({
      ok: false,
      code: "budget_exceeded",
      spent: rub("1"),
    });
  });

  it("refuses with insufficient_balance when the balance is not positive, even for a free request", async () => {
    await account("1");
    const { ref } = await key();
    const first = reserveInput(rub("1"));
    await reserve(ref, first);
    await store.billing.settle({ ...settleInput(first.reservationId, rub("1")), ref });
    expect(await reserve(ref, reserveInput(0))).toMatchObject({
      ok: false,
      code: "insufficient_balance",
      balance: 0,
    });
  });

  it("counts what is reserved by requests in flight against the balance", async () => {
    await account("10");
    const { ref } = await key();
    expect(await reserve(ref, reserveInput(rub("6")))).toMatchObject({ ok: true });
    expect(await reserve(ref, reserveInput(rub("4") + 1))).toMatchObject({
      ok: false,
      code: "insufficient_balance",
      balance: rub("10"),
      accountReserved: rub("6"),
    });
    expect(await reserve(ref, reserveInput(rub("4")))).toMatchObject({
      ok: true,
      accountReserved: rub("10"),
    });
  });

  it("reserves nothing for a request whose worst case is zero", async () => {
    await account();
    const { ref } = await key();
    const reservation = reserveInput(0);
    await reserve(ref, reservation);
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    // It still has its record, which makes its settlement exactly-once.
    expect(
      await store.redis.hget(store.redisKeys.reservationRecords("acme"), reservation.reservationId),
    ).toBe(`${ref.keyId} 0 -`);
  });
});
