// Opens the stores and services on the suite's redis-server under a key prefix of the test's own, so that
// tests never see each other's data.

import { inject } from "vitest";
import { randomToken } from "../../src/auth/api-key.js";
import type { PeriodCalendar } from "../../src/core/periods.js";
import { AccountService } from "../../src/services/accounts.js";
import { KeyService } from "../../src/services/keys.js";
import type { AccountStore } from "../../src/store/accounts/account-store.js";
import type { BillingSettings } from "../../src/store/billing/billing-connection.js";
import type { BillingStore } from "../../src/store/billing/billing-store.js";
import type { RedisClient } from "../../src/store/connection/redis.js";
import { connectRedis, createRedis, type RedisSettings } from "../../src/store/connection/redis.js";
import type { KeyStore } from "../../src/store/keys/key-store.js";
import type { RedisKeys } from "../../src/store/redis-keys.js";
import { openStores, type Stores } from "../../src/store/stores.js";
import { TestClock } from "./clock.js";

export interface TestStore {
  redis: RedisClient;
  redisKeys: RedisKeys;
  prefix: string;
  accounts: AccountStore;
  keys: KeyStore;
  billing: BillingStore;
  calendar: PeriodCalendar;
  clock: TestClock;
  stores: Stores;
  accountService: AccountService;
  keyService: KeyService;
  /** Every Redis key under this test's prefix. */
  allKeys(): Promise<string[]>;
  close(): void;
}

export function testPrefix(): string {
  return `test:${randomToken(10)}:`;
}

export async function openStore(
  options: {
    timezone?: string;
    clock?: TestClock;
    prefix?: string;
    redis?: RedisSettings;
    /** Billing settings other than the tests' defaults (e.g. requestLogMaxPerKey). */
    billing?: Partial<BillingSettings>;
  } = {},
): Promise<TestStore> {
  const settings = options.redis ?? { url: inject("redisUrl") };
  const redis = createRedis(settings, "gateway");
  await connectRedis(redis, settings);
  const prefix = options.prefix ?? testPrefix();
  const clock = options.clock ?? new TestClock();
  const stores = openStores(redis, {
    prefix,
    timezone: options.timezone ?? "UTC",
    now: clock.now,
    billing: {
      usageRetentionDays: 31,
      lateSettlementSeconds: 86_400,
      requestLogMaxPerKey: 100,
      requestLogRetentionDays: 30,
      ...options.billing,
    },
  });
  return {
    redis,
    redisKeys: stores.redisKeys,
    prefix,
    accounts: stores.accounts,
    keys: stores.keys,
    billing: stores.billing,
    calendar: stores.calendar,
    clock,
    stores,
    accountService: new AccountService(stores),
    keyService: new KeyService(stores),
    async allKeys() {
      const found: string[] = [];
      let cursor = "0";
      do {
        const [next, batch] = await (redis as import("ioredis").Redis).scan(
          cursor,
          "MATCH",
          `${prefix}*`,
          "COUNT",
          1000,
        );
        cursor = next;
        found.push(...batch);
      } while (cursor !== "0");
      return found.sort();
    },
    close: () => redis.disconnect(),
  };
}
