// The money path at the billing layer, for the model's commands: one or two replicas (billing-replica.ts),
// each its own set of the real objects a gateway builds, sharing one Redis under the run's prefix and one
// clock the test moves; the operator (operator.ts) on a connection of its own. No HTTP, no upstream: the most
// runs per second while every line of money code that runs is the gateway's.

import type { AdmittedRequest } from "../../../src/core/request.js";
import type { TestClock } from "../clock.js";
import { testPrefix } from "../store.js";
import { waitUntil } from "../wait.js";
import { type BillingReplica, ended, openReplica, requestOf } from "./billing-replica.js";
import type { Mode, Usage, WindowSpec } from "./model.js";
import { MoneyOperator, type StoreSettings } from "./operator.js";
import type { Admission, MoneySystem, RequestSpec, Snapshot } from "./system.js";

export interface BillingSystemOptions {
  replicas: number;
  leases: boolean;
  zone: string;
  clock: TestClock;
  /** How long reservations and leases live unless refreshed (ms). */
  ttlMs: number;
  balance: number;
}

interface Running {
  request: AdmittedRequest;
  slot: number;
  spec: RequestSpec;
}

export class BillingSystem implements MoneySystem {
  readonly accountId: string;
  private readonly replicas: BillingReplica[] = [];
  private readonly running = new Map<string, Running>();

  private constructor(
    private readonly options: BillingSystemOptions,
    private readonly settings: StoreSettings,
    private readonly operator: MoneyOperator,
  ) {
    this.accountId = operator.accountId;
  }

  static async open(options: BillingSystemOptions): Promise<BillingSystem> {
    const settings = { prefix: testPrefix(), zone: options.zone, clock: options.clock };
    const operator = await MoneyOperator.open(settings, "acct", options.balance);
    const system = new BillingSystem(options, settings, operator);
    for (let slot = 0; slot < options.replicas; slot++) system.replicas.push(await system.replica());
    return system;
  }

  replicaId(slot: number): string | null {
    return this.replicas[slot]?.stores.billing.replicaId ?? null;
  }

  promptTokens(wanted: number): number {
    return wanted;
  }

  createKey(windows: readonly WindowSpec[]) {
    return this.operator.createKey(windows);
  }

  async setAccount(mode: Mode, windows: readonly WindowSpec[]): Promise<void> {
    await this.operator.setAccount(mode, windows);
    await this.changeSeen();
  }

  async topUp(amount: number): Promise<void> {
    await this.operator.topUp(amount);
    await this.changeSeen();
  }

  async start(spec: RequestSpec): Promise<Admission> {
    const replica = this.replicas[spec.slot] as BillingReplica;
    const request = requestOf(spec);
    const hash = this.operator.keys.get(spec.key.keyId)?.hash as string;
    const worst = {
      promptTokens: spec.promptMax,
      completionTokens: spec.cap,
      choices: 1,
      amount: spec.worst,
    };
    replica.lastReply = null;
    try {
      await replica.billing.admitWorst(request, hash, { kind: "none" }, worst);
    } catch (error) {
      const reply = replica.lastReply as BillingReplica["lastReply"];
      if (reply === null || reply.ok) throw error;
      return {
        ok: false,
        code: reply.code,
        scope: reply.scope ?? null,
        period: reply.period ?? null,
        figures: {
          budget: reply.budget,
          spent: reply.spent,
          reserved: reply.code === "budget_exceeded" ? reply.keyReserved : reply.accountReserved,
          balance: reply.balance,
        },
      };
    }
    this.running.set(spec.id, { request, slot: spec.slot, spec });
    return {
      ok: true,
      path: request.admission === "lease" ? "lease" : "reserve",
      reservationId: request.reservationId,
      leaseId: request.leaseHold?.leaseId ?? null,
    };
  }

  async finish(
    slot: number,
    requests: readonly { id: string; usage: Usage }[],
    lostReply = false,
  ): Promise<void> {
    const replica = this.replicas[slot] as BillingReplica;
    for (const { id, usage } of requests) {
      const { request, spec } = this.take(id);
      ended(request, spec, usage, this.options.clock.now());
      if (lostReply) replica.loseReply.add(request.reservationId as string);
      replica.billing.settle(request);
    }
    await flush(replica);
  }

  async loseReservation(id: string): Promise<void> {
    const run = this.running.get(id);
    if (run?.request.admission !== "reserve")
      throw new Error(`request ${id} holds no reservation of its own`);
    await this.operator.loseReservation(run.request.reservationId as string);
  }

  async release(id: string): Promise<void> {
    const { request, slot } = this.take(id);
    const replica = this.replicas[slot] as BillingReplica;
    replica.billing.release(request, "client_aborted", 499);
    await flush(replica);
  }

  async tick(slot: number): Promise<void> {
    const leases = this.replicas[slot]?.leases;
    if (!leases) return;
    leases.book.tick();
    await leases.book.idle(5000);
  }

  async kill(slot: number): Promise<void> {
    const replica = this.replicas[slot] as BillingReplica;
    // The process is gone: its connection first, so that nothing it would still say reaches Redis.
    replica.redis.disconnect();
    replica.queue.close();
    await replica.leases?.stop(0);
    for (const [id, run] of this.running) if (run.slot === slot) this.running.delete(id);
    this.replicas[slot] = await this.replica();
  }

  purge(): Promise<void> {
    return this.operator.purge();
  }

  snapshot(): Promise<Snapshot> {
    return this.operator.snapshot();
  }

  ledger(days: readonly string[]) {
    return this.operator.ledger(days);
  }

  async quiesce(): Promise<void> {
    for (const replica of this.replicas) {
      const leases = replica.leases;
      if (!leases) continue;
      leases.book.releaseAll();
      await waitUntil(async () => {
        await leases.book.idle(5000);
        leases.book.tick();
        await leases.book.idle(5000);
        return leases.book.stats().dying === 0;
      }, "the replica's leases given back");
    }
  }

  unexpectedErrors(): unknown[] {
    return this.replicas.flatMap((replica) => replica.errors);
  }

  async close(): Promise<void> {
    for (const replica of this.replicas) {
      await replica.leases?.stop(1000);
      replica.queue.close();
      replica.redis.disconnect();
    }
    this.operator.close();
  }

  /** Waits until every replica has seen the account's change: none holds a lease sized by the old limits. */
  private async changeSeen(): Promise<void> {
    for (const replica of this.replicas) {
      const book = replica.leases?.book;
      if (book) await waitUntil(() => book.stats().leases === 0, "the change reaching every replica");
    }
  }

  private take(id: string): Running {
    const run = this.running.get(id);
    if (!run) throw new Error(`no request ${id} is running`);
    this.running.delete(id);
    return run;
  }

  private replica(): Promise<BillingReplica> {
    return openReplica(this.settings, { leases: this.options.leases, ttlMs: this.options.ttlMs });
  }
}

async function flush(replica: BillingReplica): Promise<void> {
  const left = await replica.queue.flush(5000);
  if (left > 0) throw new Error(`${left} settlements were not written`);
}
