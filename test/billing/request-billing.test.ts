// The request path's billing, releasing a reservation without charging it, for a request that ended before
// it could be metered: a settlement of nothing, marked failed, that frees what was reserved now rather than
// at its expiry and lists the request among the key's recent ones. On the suite's Redis, through the real
// settlement queue.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SettlementQueue } from "../../src/billing/settlement-queue.js";
import type { RecordOutcome } from "../../src/core/outcome.js";
import { GatewayRequest } from "../../src/core/request.js";
import { ACTOR } from "../helpers/actor.js";
import { testContext } from "../helpers/context.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

interface Released {
  ref: { accountId: string; keyId: string };
  reservationId: string;
  requestId: string;
  model: string | null;
  arrivedAt: number;
  outcome: RecordOutcome;
  status: number;
  keyName?: string | null;
}

function released(fields: Partial<Released> = {}): Released {
  return {
    ref: { accountId: "acme", keyId: "key_aaaaaaaaaaaaaaaaaaaa" },
    reservationId: "resv-1",
    requestId: "req-1",
    model: "m",
    arrivedAt: performance.now() - 5,
    outcome: "redis_unavailable",
    status: 503,
    ...fields,
  };
}

/** Releases a request admitted as `fields` says, as the request path would. */
function release(ctx: ReturnType<typeof testContext>["ctx"], fields: Released): void {
  const request = new GatewayRequest(fields.requestId, "POST", "/v1/chat/completions", fields.arrivedAt);
  const reserved = Object.assign(request, {
    ref: fields.ref,
    reservationId: fields.reservationId,
    model: fields.model,
    keyName: fields.keyName ?? null,
  });
  ctx.billing.release(reserved, fields.outcome, fields.status);
}

describe("RequestBilling.release", () => {
  it("settles nothing, as failed, with the request's entry for the recent-requests list and no bodies", () => {
    const { ctx, settled } = testContext(store, {});
    release(ctx, released({ keyName: "prod" }));
    expect(settled).toHaveLength(1);
    const [settlement] = settled;
    const now = store.clock.now();
    expect(settlement).toMatchObject({
      ref: { accountId: "acme", keyId: "key_aaaaaaaaaaaaaaaaaaaa" },
      keyName: "prod",
      reservationId: "resv-1",
      logEntryWithBodies: "",
      cost: 0,
      promptTokens: 0,
      completionTokens: 0,
      failed: true,
      estimated: false,
      periods: store.calendar.at(now),
      day: store.calendar.dayOf(now),
    });
    expect(settlement!.latencyMs).toBeGreaterThanOrEqual(5);
    expect(JSON.parse(settlement!.logEntry)).toMatchObject({
      at: new Date(now).toISOString(),
      request_id: "req-1",
      method: "POST",
      path: "/v1/chat/completions",
      model: "m",
      status: 503,
      outcome: "redis_unavailable",
      cost: 0,
    });
    release(ctx, released());
    expect(settled[1]?.keyName).toBeNull();
  });

  it("frees a reservation at once, charging nothing, and lists the request as failed", async () => {
    await store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
    const key = (await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR)).record;
    const ref = { accountId: "acme", keyId: key.id };
    const now = store.clock.now();
    const reservation = await store.billing.reserve(ref, {
      reservationId: "resv-1",
      amount: 2_000_000,
      tokens: 0,
      keyHash: key.hash as string,
      now,
      periods: store.calendar.at(now),
      expiresAt: now + 60_000,
      model: { kind: "none" },
    });
    expect(reservation.ok).toBe(true);
    expect((await store.billing.reserved("acme")).account).toBe(2_000_000);

    const queue = new SettlementQueue(store.billing);
    const { ctx } = testContext(store, {}, queue);
    release(ctx, released({ ref, outcome: "internal_error", status: 500 }));
    expect(await queue.flush(5000)).toBe(0);
    queue.close();

    expect((await store.billing.reserved("acme")).account).toBe(0);
    expect((await store.accounts.require("acme")).balance).toBe(10_000_000);
    const [entry] = await store.stores.requestLog.recent("acme", key.id, 10);
    expect(entry).toMatchObject({ request_id: "req-1", status: 500, outcome: "internal_error", cost: 0 });
  });

  it("changes nothing when the reservation was never made", async () => {
    await store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
    const key = (await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR)).record;
    const queue = new SettlementQueue(store.billing);
    const { ctx } = testContext(store, {}, queue);
    release(ctx, released({ ref: { accountId: "acme", keyId: key.id }, reservationId: "never-made" }));
    expect(await queue.flush(5000)).toBe(0);
    queue.close();
    expect((await store.accounts.require("acme")).balance).toBe(10_000_000);
    expect(await store.stores.requestLog.recent("acme", key.id, 10)).toEqual([]);
  });
});
