// Calling the billing scripts as the forwarder does, for the store's tests on a real Redis: a reservation's
// and a settlement's input at the store's clock with every field filled (reservationAt, settlementAt, each
// test giving what matters to it, and a lease call's, leaseAt); and for the reserve and settle scripts' own tests, an account and a key
// made through the services and a reservation that presents the key's current value (billingScripts), bound
// to the suite's current store, which each test opens anew (`billingScripts(() => store)`).

import { randomUUID } from "node:crypto";
import type { KeyRef } from "../../src/core/key-ref.js";
import type { LeaseInput } from "../../src/store/billing/lease-script.js";
import type { ReserveInput } from "../../src/store/billing/reserve-script.js";
import type { Settlement } from "../../src/store/billing/settle-script.js";
import { ACTOR } from "./actor.js";
import type { TestStore } from "./store.js";

/** A reservation's input as a test gives it: the key's value hash and the tokens are filled in unless told. */
export type TestReserve = Omit<ReserveInput, "keyHash" | "tokens"> &
  Partial<Pick<ReserveInput, "keyHash" | "tokens">>;

/**
 * A reservation's input at the store's clock: a new id, the current periods, a minute to live, no model;
 * the key's value hash and the tokens are the caller's to add.
 */
export function reservationAt(
  store: TestStore,
  amount: number,
  overrides: Partial<ReserveInput> = {},
): TestReserve {
  const now = store.clock.now();
  return {
    reservationId: randomUUID(),
    amount,
    now,
    periods: store.calendar.at(now),
    expiresAt: now + 60_000,
    model: { kind: "none" },
    ...overrides,
  };
}

/**
 * A settlement's input at the store's clock: a request that cost `cost`, answered in 5 ms with one prompt and
 * one completion token, logged as "{}", neither failed nor estimated; `overrides` for what a test looks at.
 */
export function settlementAt(
  store: TestStore,
  reservationId: string,
  cost: number,
  overrides: Partial<Omit<Settlement, "ref">> = {},
): Omit<Settlement, "ref"> {
  const now = store.clock.now();
  return {
    reservationId,
    logEntry: "{}",
    logEntryWithBodies: "",
    model: null,
    cost,
    promptTokens: 1,
    completionTokens: 1,
    failed: false,
    estimated: false,
    latencyMs: 5,
    periods: store.calendar.at(now),
    day: store.calendar.dayOf(now),
    now,
    ...overrides,
  };
}

/** A lease call's input at the store's clock: a minute to live, half of what is free, growing. */
export function leaseAt(
  store: TestStore,
  leaseId: string,
  amount: number,
  overrides: Partial<LeaseInput> = {},
): LeaseInput {
  const now = store.clock.now();
  return {
    leaseId,
    amount,
    now,
    periods: store.calendar.at(now),
    expiresAt: now + 60_000,
    share: 2,
    grow: true,
    ...overrides,
  };
}

export function billingScripts(current: () => TestStore) {
  /** Each key's value hash, as the forwarder presents it with every request. */
  const hashes = new Map<string, string>();

  async function account(balance = "100", id = "acme"): Promise<void> {
    await current().accountService.create({ id, balance }, ACTOR);
  }

  async function key(
    options: { budget?: string; period?: string; ttl?: string; models?: string[]; accountId?: string } = {},
  ) {
    const { record } = await current().keyService.create(
      {
        accountId: options.accountId ?? "acme",
        name: "test",
        budget: options.budget,
        period: options.period,
        ttl: options.ttl,
        models: options.models,
      },
      ACTOR,
    );
    hashes.set(record.id, record.hash as string);
    return { ref: { accountId: record.accountId, keyId: record.id } satisfies KeyRef, record };
  }

  /** Reserves as the forwarder does, presenting the key's current value and no tokens unless told. */
  function reserve(ref: KeyRef, input: TestReserve) {
    return current().billing.reserve(ref, {
      tokens: 0,
      keyHash: hashes.get(ref.keyId) ?? "unknown",
      ...input,
    });
  }

  function reserveInput(amount: number, overrides: Partial<ReserveInput> = {}): TestReserve {
    return reservationAt(current(), amount, overrides);
  }

  function settleInput(
    reservationId: string,
    cost: number,
    overrides: Partial<Omit<Settlement, "ref">> = {},
  ): Omit<Settlement, "ref"> {
    return settlementAt(current(), reservationId, cost, {
      logEntry: JSON.stringify({ request_id: reservationId }),
      promptTokens: 10,
      completionTokens: 20,
      latencyMs: 120,
      ...overrides,
    });
  }

  return { account, key, hashes, reserve, reserveInput, settleInput };
}
