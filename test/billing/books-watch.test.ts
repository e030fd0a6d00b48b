// The replica's books against Redis' ledger of them, on the suite's redis-server: settlements made through the
// real settle script, the ledger they keep, and what the watch makes of a charge in flight, a charge lost, a
// charge it does not know of, and the books agreeing again.

import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BooksWatch, type DriftReport } from "../../src/billing/books-watch.js";
import { PendingSettlements } from "../../src/billing/pending-settlements.js";
import { LEDGER_FIELD, type Settlement } from "../../src/store/billing/settle-script.js";
import { ACTOR } from "../helpers/actor.js";
import { settlementAt } from "../helpers/billing-scripts.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let pending: PendingSettlements;
let reports: DriftReport[];
let watch: BooksWatch;
let keyId: string;

beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  keyId = (await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR)).record.id;
  pending = new PendingSettlements();
  reports = [];
  watch = new BooksWatch({
    billing: store.billing,
    pending,
    drift: (report) => reports.push(report),
    onError: (error) => {
      throw error;
    },
  });
});
afterEach(() => store.close());

function settlement(cost: number): Settlement {
  return {
    ref: { accountId: "acme", keyId },
    ...settlementAt(store, randomUUID(), cost, { latencyMs: 1 }),
  };
}

/** A settlement made in Redis and done on the replica, as the queue hands it to the watch. */
async function settled(cost: number): Promise<void> {
  const made = settlement(cost);
  watch.settled(made, await store.billing.settle(made));
}

const ledger = () => store.redisKeys.settlementMarkers("acme", store.billing.replicaId);

describe("the books watch", () => {
  it("finds nothing to say while the replica's charges and Redis' ledger agree", async () => {
    await settled(250_000);
    await settled(1_000_000);
    await watch.check();
    await watch.check();
    expect(reports).toEqual([]);
  });

  it("allows Redis to hold what is still pending, and nothing beyond it", async () => {
    await settled(250_000);
    const inFlight = settlement(500_000);
    pending.add(inFlight);
    await store.billing.settle(inFlight);
    await watch.check();
    await watch.check();
    expect(reports).toEqual([]);
    // Redis holds more than the pending settlement explains.
    await store.redis.hincrby(ledger(), LEDGER_FIELD, 70_000);
    await watch.check();
    expect(reports).toEqual([]);
    await watch.check();
    expect(reports).toEqual([
      { accountId: "acme", difference: 70_000, charged: 250_000, ledger: 820_000, pending: 500_000 },
    ]);
  });

  it("reports a charge lost in Redis once it outlives one check, once per amount, and the books agreeing again", async () => {
    await settled(250_000);
    await settled(39_500);
    // What a failover that lost the last settlement's write leaves of the ledger.
    await store.redis.hincrby(ledger(), LEDGER_FIELD, -39_500);
    await watch.check();
    expect(reports).toEqual([]);
    await watch.check();
    await watch.check();
    expect(reports).toEqual([
      { accountId: "acme", difference: -39_500, charged: 289_500, ledger: 250_000, pending: 0 },
    ]);
    await store.redis.hincrby(ledger(), LEDGER_FIELD, 39_500);
    await watch.check();
    await watch.check();
    expect(reports.at(-1)).toEqual({
      accountId: "acme",
      difference: 0,
      charged: 289_500,
      ledger: 289_500,
      pending: 0,
    });
  });

  it("counts a duplicate as charged: its first attempt wrote the ledger", async () => {
    const made = settlement(250_000);
    await store.billing.settle(made);
    watch.settled(made, await store.billing.settle(made));
    await watch.check();
    await watch.check();
    expect(reports).toEqual([]);
  });

  it("keeps the ledger from expiring while the replica reads it", async () => {
    await settled(250_000);
    await store.redis.persist(ledger());
    await watch.check();
    expect(await store.redis.pttl(ledger())).toBeGreaterThan(86_000_000);
  });
});
