// Calling the billing scripts as the forwarder does, for the store's tests on a real Redis: an account and a
// key made through the services, a reservation that presents the key's current value (and no tokens unless
// told), and a settlement's input with every field filled. Bound to the suite's current store, which each
// test opens anew (`billingScripts(() => store)`).

import { randomUUID } from "node:crypto";
import type { KeyRef } from "../../src/core/key-ref.js";
import type { ReserveInput } from "../../src/store/billing/reserve-script.js";
import type { Settlement } from "../../src/store/billing/settle-script.js";
import { ACTOR } from "./actor.js";
import type { TestStore } from "./store.js";

/** A reservation's input as a test gives it: the key's value hash and the tokens are filled in unless told. */
export type TestReserve = Omit<ReserveInput, "keyHash" | "tokens"> &
  Partial<Pick<ReserveInput, "keyHash" | "tokens">>;

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
    const now = current().clock.now();
    return {
      reservationId: randomUUID(),
      amount,
      now,
      periods: current().calendar.at(now),
      expiresAt: now + 60_000,
      model: { kind: "none" },
      ...overrides,
    };
  }

  function settleInput(
    reservationId: string,
    cost: number,
    overrides: Partial<Omit<Settlement, "ref">> = {},
  ): Omit<Settlement, "ref"> {
    const now = current().clock.now();
    return {
      reservationId,
      logEntry: JSON.stringify({ request_id: reservationId }),
      logEntryWithBodies: "",
      model: null,
      cost,
      promptTokens: 10,
      completionTokens: 20,
      failed: false,
      estimated: false,
      latencyMs: 120,
      periods: current().calendar.at(now),
      day: current().calendar.dayOf(now),
      now,
      ...overrides,
    };
  }

  return { account, key, hashes, reserve, reserveInput, settleInput };
}
