// The operator's side of a money run, on a connection of its own: the account, its keys, its windows and
// mode, top-ups (through the services, as the admin API and the CLI make them), and the reads of the checks
// (snapshot.ts). Both systems (billing-system.ts, gateway-system.ts) share it.

import type { Redis } from "ioredis";
import { inject } from "vitest";
import { GatewayError } from "../../../src/core/errors.js";
import type { KeyRef } from "../../../src/core/key-ref.js";
import { formatRubles, type Micros } from "../../../src/core/money.js";
import { AccountService } from "../../../src/services/accounts.js";
import { BudgetService } from "../../../src/services/budgets.js";
import { KeyService } from "../../../src/services/keys.js";
import { connectRedis, createRedis, type RedisClient } from "../../../src/store/connection/redis.js";
import type { KeyRecord } from "../../../src/store/records.js";
import { openStores, type Stores } from "../../../src/store/stores.js";
import { ACTOR } from "../actor.js";
import type { TestClock } from "../clock.js";
import type { Mode, WindowSpec } from "./model.js";
import { ledger, readSnapshot } from "./snapshot.js";
import type { Snapshot } from "./system.js";

/**
 * An expired reservation is remembered far longer than any run moves the clock (expiry commands included),
 * so that a late settlement is always charged.
 */
export const LATE_SETTLEMENT_SECONDS = 1000 * 365 * 86_400;

export interface StoreSettings {
  prefix: string;
  zone: string;
  clock: TestClock;
}

export async function connect(): Promise<RedisClient> {
  const settings = { url: inject("redisUrl") };
  const redis = createRedis(settings, "gateway");
  await connectRedis(redis, settings);
  return redis;
}

export function storesFor(redis: RedisClient, { prefix, zone, clock }: StoreSettings): Stores {
  return openStores(redis, {
    prefix,
    timezone: zone,
    now: clock.now,
    billing: {
      usageRetentionDays: 400,
      lateSettlementSeconds: LATE_SETTLEMENT_SECONDS,
      requestLogMaxPerKey: 10,
      requestLogRetentionDays: 30,
    },
  });
}

export class MoneyOperator {
  /** Each key's value: its hash (what the billing layer is given) and the key itself (what HTTP sends). */
  readonly keys = new Map<string, { hash: string; value: string }>();

  private constructor(
    readonly accountId: string,
    readonly redis: RedisClient,
    readonly stores: Stores,
  ) {}

  static async open(settings: StoreSettings, accountId: string, balance: Micros): Promise<MoneyOperator> {
    const redis = await connect();
    const operator = new MoneyOperator(accountId, redis, storesFor(redis, settings));
    await new AccountService(operator.stores).create(
      { id: accountId, balance: formatRubles(balance) },
      ACTOR,
    );
    return operator;
  }

  async createKey(windows: readonly WindowSpec[]): Promise<KeyRef | { refused: string }> {
    const budgets = windows.map((w) => `${formatRubles(w.budget)}/${w.period}`);
    let created: { record: KeyRecord; value: string };
    try {
      created = await new KeyService(this.stores).create(
        { accountId: this.accountId, name: "k", ...(budgets.length > 0 && { budgets }) },
        ACTOR,
      );
    } catch (error) {
      if (error instanceof GatewayError) return { refused: error.code };
      throw error;
    }
    const { record, value } = created;
    this.keys.set(record.id, { hash: record.hash as string, value });
    return { accountId: this.accountId, keyId: record.id };
  }

  async setAccount(mode: Mode, windows: readonly WindowSpec[]): Promise<void> {
    await new BudgetService(this.stores).setAccountBudgets(
      this.accountId,
      { billing: mode, budgets: windows.map((w) => ({ period: w.period, amount: formatRubles(w.budget) })) },
      ACTOR,
    );
  }

  async topUp(amount: Micros): Promise<void> {
    await new AccountService(this.stores).topUp(this.accountId, formatRubles(amount), ACTOR);
  }

  /**
   * A failover lost what a request's reserve wrote (its record, its expiry, what it added to the reserved
   * totals), as a promoted master that never received it would: the request's settlement finds nothing and
   * must still charge what the request cost.
   */
  async loseReservation(reservationId: string): Promise<void> {
    const keys = this.stores.redisKeys;
    const records = keys.reservationRecords(this.accountId);
    const record = await this.redis.hget(records, reservationId);
    const multi = (this.redis as Redis).multi();
    multi.hdel(records, reservationId).zrem(keys.reservations(this.accountId), reservationId);
    const [keyId, amount, tokens] = record?.split(" ") ?? [];
    if (record !== null && record !== "expired" && keyId !== undefined) {
      const reserved = keys.reserved(this.accountId);
      multi.hincrby(reserved, keyId, -Number(amount)).hincrby(reserved, "*", -Number(amount));
      // A request's record of three fields counted it in flight (releaseReserved.lua).
      if (tokens !== undefined && tokens !== "L") multi.hincrby(reserved, `${keyId}#n`, -1);
    }
    await multi.exec();
    // A total back at 0 is no field at all, as the scripts leave it.
    const totals = await this.redis.hgetall(keys.reserved(this.accountId));
    for (const [field, value] of Object.entries(totals))
      if (value === "0") await this.redis.hdel(keys.reserved(this.accountId), field);
  }

  /** A lease call that only shrinks a lease nobody has: it releases what expired and changes nothing else. */
  async purge(): Promise<void> {
    const [keyId] = this.keys.keys();
    if (keyId === undefined) return;
    const now = this.stores.now();
    await this.stores.billing.lease(
      { accountId: this.accountId, keyId },
      {
        leaseId: "lease:purge:none:0",
        amount: 0,
        now,
        periods: this.stores.calendar.at(now),
        expiresAt: now,
        share: 2,
        grow: false,
      },
    );
  }

  snapshot(): Promise<Snapshot> {
    return readSnapshot(this.redis, this.stores.redisKeys, this.accountId, [...this.keys.keys()]);
  }

  ledger(days: readonly string[]): Promise<{ daily: number; monthly: number }> {
    return ledger(this.redis, this.stores.redisKeys, this.accountId, [...this.keys.keys()], days);
  }

  close(): void {
    this.redis.disconnect();
  }
}
