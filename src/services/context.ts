// What the service layer needs from the outside world: the stores, the billing calendar and a clock that
// tests can set.

import { PeriodCalendar } from "../billing/periods.js";
import { AccountStore } from "../store/account-store.js";
import { AuditStore } from "../store/audit-store.js";
import { KeyStore } from "../store/key-store.js";
import type { RedisClient } from "../store/redis.js";
import { RedisKeys } from "../store/redis-keys.js";
import { RequestLogStore } from "../store/request-log-store.js";
import { UsageStore } from "../store/usage-store.js";

export interface ServiceContext {
  accounts: AccountStore;
  keys: KeyStore;
  audit: AuditStore;
  usage: UsageStore;
  requestLog: RequestLogStore;
  calendar: PeriodCalendar;
  now: () => number;
}

/** The service context over one Redis connection, as the CLI, the admin API, the demo and the tests use it. */
export function buildServiceContext(
  redis: RedisClient,
  options: { prefix: string; timezone: string; now?: () => number },
): ServiceContext {
  const keys = new RedisKeys(options.prefix);
  return {
    accounts: new AccountStore(redis, keys),
    keys: new KeyStore(redis, keys),
    audit: new AuditStore(redis, keys),
    usage: new UsageStore(redis, keys),
    requestLog: new RequestLogStore(redis, keys),
    calendar: new PeriodCalendar(options.timezone),
    now: options.now ?? Date.now,
  };
}
