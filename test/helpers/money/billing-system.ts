// The money path at the billing layer, for the model's commands: each replica is its own set of the real
// objects a gateway builds (gateway.ts) — its own Redis connection and stores (so its own replica id), lease
// service with its change feed, settlement queue and request billing — and they share one Redis under the
// run's prefix and one clock the test moves. No HTTP, no upstream: a request is the GatewayRequest the
// forwarder would hand over, with the facts the exchange would have gathered. The lease books are ticked by
// the commands, not by a timer.

import { performance } from "node:perf_hooks";
import pino from "pino";
import { inject } from "vitest";
import { LeaseService } from "../../../src/billing/lease-service.js";
import { RequestBilling } from "../../../src/billing/request-billing.js";
import { SettlementQueue } from "../../../src/billing/settlement-queue.js";
import { GatewayError } from "../../../src/core/errors.js";
import type { KeyRef } from "../../../src/core/key-ref.js";
import { formatRubles, type Micros } from "../../../src/core/money.js";
import type { ModelPrice } from "../../../src/core/price.js";
import { GatewayRequest } from "../../../src/core/request.js";
import { AccountService } from "../../../src/services/accounts.js";
import { BudgetService } from "../../../src/services/budgets.js";
import { KeyService } from "../../../src/services/keys.js";
import type { Refusal, Reservation } from "../../../src/store/billing-store.js";
import type { KeyRecord } from "../../../src/store/records.js";
import { connectRedis, createRedis, type RedisClient } from "../../../src/store/redis.js";
import { openStores, type Stores } from "../../../src/store/stores.js";
import { ACTOR } from "../actor.js";
import type { TestClock } from "../clock.js";
import { testPrefix } from "../store.js";
import { waitUntil } from "../wait.js";
import type { Mode, Price, Usage, WindowSpec } from "./model.js";
import { ledger, readSnapshot } from "./snapshot.js";
import type { Admission, MoneySystem, RequestSpec, Snapshot } from "./system.js";

export interface BillingSystemOptions {
  replicas: number;
  leases: boolean;
  zone: string;
  clock: TestClock;
  /** How long reservations and leases live unless refreshed (ms). */
  ttlMs: number;
  balance: Micros;
}

/**
 * An expired reservation is remembered far longer than any run moves the clock (expiry commands included),
 * so that a late settlement is always charged.
 */
const LATE_SETTLEMENT_SECONDS = 1000 * 365 * 86_400;

interface Replica {
  instance: number;
  redis: RedisClient;
  stores: Stores;
  leases: LeaseService | null;
  queue: SettlementQueue;
  billing: RequestBilling;
  /** What the reserve script answered last (the refusal's figures). */
  lastReply: Reservation | Refusal | null;
  errors: unknown[];
  dead: boolean;
}

interface Running {
  request: GatewayRequest;
  slot: number;
  instance: number;
  spec: RequestSpec;
}

export class BillingSystem implements MoneySystem {
  readonly accountId = "acct";
  private readonly replicas: Replica[] = [];
  private readonly running = new Map<string, Running>();
  private readonly failures: unknown[] = [];
  /** Each key's value hash, as requests present it. */
  private readonly hashes = new Map<string, string>();
  private instances = 0;

  private constructor(
    private readonly options: BillingSystemOptions,
    private readonly prefix: string,
    /** The operator's connection: accounts, keys, budgets, and the reads of the checks. */
    private readonly admin: { redis: RedisClient; stores: Stores },
  ) {}

  static async open(options: BillingSystemOptions): Promise<BillingSystem> {
    const prefix = testPrefix();
    const redis = await connect();
    const system = new BillingSystem(options, prefix, { redis, stores: storesFor(redis, prefix, options) });
    await new AccountService(system.admin.stores).create(
      { id: system.accountId, balance: formatRubles(options.balance) },
      ACTOR,
    );
    for (let slot = 0; slot < options.replicas; slot++) system.replicas.push(await system.replica());
    return system;
  }

  replicaId(slot: number): string | null {
    return this.replicas[slot]?.stores.billing.replicaId ?? null;
  }

  async createKey(windows: readonly WindowSpec[]): Promise<KeyRef | { refused: string }> {
    const budgets = windows.map((w) => `${formatRubles(w.budget)}/${w.period}`);
    let record: KeyRecord;
    try {
      ({ record } = await new KeyService(this.admin.stores).create(
        { accountId: this.accountId, name: "k", ...(budgets.length > 0 && { budgets }) },
        ACTOR,
      ));
    } catch (error) {
      if (error instanceof GatewayError) return { refused: error.code };
      throw error;
    }
    this.hashes.set(record.id, record.hash as string);
    return { accountId: this.accountId, keyId: record.id };
  }

  async setAccount(mode: Mode, windows: readonly WindowSpec[]): Promise<void> {
    await new BudgetService(this.admin.stores).setAccountBudgets(
      this.accountId,
      { billing: mode, budgets: windows.map((w) => ({ period: w.period, amount: formatRubles(w.budget) })) },
      ACTOR,
    );
    await this.changeSeen();
  }

  async topUp(amount: Micros): Promise<void> {
    await new AccountService(this.admin.stores).topUp(this.accountId, formatRubles(amount), ACTOR);
    await this.changeSeen();
  }

  async start(spec: RequestSpec): Promise<Admission> {
    const replica = this.replicas[spec.slot] as Replica;
    const request = new GatewayRequest(spec.id, "POST", "/v1/chat/completions", performance.now());
    request.ref = spec.key;
    request.model = spec.price.name;
    request.usageClass = "generation";
    request.endpointClass = "generation";
    request.price = modelPrice(spec.price);
    const hash = this.hashes.get(spec.key.keyId) as string;
    const worst = {
      promptTokens: spec.promptMax,
      completionTokens: spec.cap,
      choices: 1,
      amount: spec.worst,
    };
    replica.lastReply = null;
    try {
      const admitted =
        replica.billing.admitOnLease(request, hash, { kind: "none" }, worst) ??
        (await replica.billing.reserve(request, hash, { kind: "none" }, worst));
      void admitted;
    } catch (error) {
      const reply = replica.lastReply as Reservation | Refusal | null;
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
    this.running.set(spec.id, { request, slot: spec.slot, instance: replica.instance, spec });
    return {
      ok: true,
      path: request.admission === "lease" ? "lease" : "reserve",
      reservationId: request.reservationId,
      leaseId: request.leaseHold?.leaseId ?? null,
    };
  }

  async finish(slot: number, ended: readonly { id: string; usage: Usage }[]): Promise<void> {
    const replica = this.replicas[slot] as Replica;
    for (const { id, usage } of ended) {
      const { request, spec } = this.take(id);
      request.forwardedAt = performance.now();
      request.upstreamStatus = usage.status;
      request.status = usage.status;
      request.outcome = "completed";
      request.metered = true;
      request.usage = { prompt: usage.prompt, completion: usage.completion, cached: usage.cached };
      request.promptEstimate = spec.promptMax;
      request.maxCompletionTokens = spec.cap;
      request.maxPromptTokens = spec.promptMax;
      request.end(this.options.clock.now(), performance.now());
      replica.billing.settle(request);
    }
    await this.flush(replica);
  }

  async release(id: string): Promise<void> {
    const { request, slot } = this.take(id);
    const replica = this.replicas[slot] as Replica;
    replica.billing.release(request, "client_aborted", 499);
    await this.flush(replica);
  }

  async tick(slot: number): Promise<void> {
    const leases = this.replicas[slot]?.leases;
    if (!leases) return;
    leases.book.tick();
    await leases.book.idle(5000);
  }

  async kill(slot: number): Promise<void> {
    const replica = this.replicas[slot] as Replica;
    replica.dead = true;
    // The process is gone: its connection first, so that nothing it would still say reaches Redis.
    replica.redis.disconnect();
    replica.queue.close();
    await replica.leases?.stop(0);
    for (const [id, run] of this.running) if (run.slot === slot) this.running.delete(id);
    this.replicas[slot] = await this.replica();
  }

  async purge(): Promise<void> {
    // A lease call that only shrinks a lease nobody has: it releases what expired and changes nothing else.
    const [any] = this.hashes.keys();
    if (any === undefined) return;
    const now = this.options.clock.now();
    await this.admin.stores.billing.lease(
      { accountId: this.accountId, keyId: any },
      {
        leaseId: "lease:purge:none:0",
        amount: 0,
        now,
        periods: this.admin.stores.calendar.at(now),
        expiresAt: now,
        share: 2,
        grow: false,
      },
    );
  }

  snapshot(): Promise<Snapshot> {
    return readSnapshot(this.admin.redis, this.admin.stores.redisKeys, this.accountId, [
      ...this.hashes.keys(),
    ]);
  }

  ledger(days: readonly string[]): Promise<{ daily: number; monthly: number }> {
    const { redis, stores } = this.admin;
    return ledger(redis, stores.redisKeys, this.accountId, [...this.hashes.keys()], days);
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
    return [...this.failures, ...this.replicas.flatMap((replica) => replica.errors)];
  }

  async close(): Promise<void> {
    for (const replica of this.replicas) {
      await replica.leases?.stop(1000);
      replica.queue.close();
      replica.redis.disconnect();
    }
    this.admin.redis.disconnect();
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

  private async flush(replica: Replica): Promise<void> {
    const left = await replica.queue.flush(5000);
    if (left > 0) throw new Error(`${left} settlements were not written`);
  }

  private async replica(): Promise<Replica> {
    const { options, prefix } = this;
    const redis = await connect();
    const stores = storesFor(redis, prefix, options);
    const instance = ++this.instances;
    const errors: unknown[] = [];
    // Warnings and errors of a live replica are unexpected: a lease call or a settlement that failed.
    const logger = pino({ level: "warn" }, { write: (line: string) => void errors.push(JSON.parse(line)) });
    const replica = { instance, redis, stores, dead: false, errors, lastReply: null } as unknown as Replica;
    const leases = options.leases
      ? new LeaseService({
          redis,
          keys: stores.redisKeys,
          billing: stores.billing,
          calendar: stores.calendar,
          now: options.clock.now,
          ttlMs: options.ttlMs,
          logger,
          tickMs: 0,
        })
      : null;
    await leases?.start();
    const hooks = {
      failed: (_settlement: unknown, error: unknown) => this.failures.push(error),
    };
    replica.leases = leases;
    replica.queue = new SettlementQueue(
      stores.billing,
      leases ? leases.settlementHooks(hooks) : hooks,
      leases?.book,
    );
    replica.billing = new RequestBilling({
      store: {
        reserve: async (ref, input) => {
          const reply = await stores.billing.reserve(ref, input);
          replica.lastReply = reply;
          return reply;
        },
      },
      leases,
      settlements: replica.queue,
      rules: {
        calendar: stores.calendar,
        estimate: { reserveBytesPerToken: 1, usageBytesPerToken: 4 },
        overage: "absorb",
        logBodyBytes: 0,
      },
      reservationTtlMs: options.ttlMs,
      now: options.clock.now,
      expiredReservations: () => {},
      logger,
    });
    return replica;
  }
}

async function connect(): Promise<RedisClient> {
  const settings = { url: inject("redisUrl") };
  const redis = createRedis(settings, "gateway");
  await connectRedis(redis, settings);
  return redis;
}

function storesFor(redis: RedisClient, prefix: string, options: BillingSystemOptions): Stores {
  return openStores(redis, {
    prefix,
    timezone: options.zone,
    now: options.clock.now,
    billing: {
      usageRetentionDays: 400,
      lateSettlementSeconds: LATE_SETTLEMENT_SECONDS,
      requestLogMaxPerKey: 10,
      requestLogRetentionDays: 30,
    },
  });
}

function modelPrice(price: Price): ModelPrice {
  return {
    input: price.input,
    output: price.output,
    cachedInput: price.cachedInput,
    cacheWrite: price.input,
    perRequest: price.perRequest,
    maxOutputTokens: 4096,
    contextTokens: null,
    maxImageTokens: 0,
    maxAudioTokens: 0,
    maxVideoTokens: 0,
  };
}
