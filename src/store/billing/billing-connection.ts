// What the billing scripts' calls share: the connection, the key names, the settings, and the replica's id
// (billing-store.ts, reserve-script.ts, lease-script.ts, settle-script.ts).

import type { EventStore } from "../accounts/event-store.js";
import type { RedisClient } from "../connection/redis.js";
import type { RedisObserver } from "../connection/timing.js";
import type { RedisKeys } from "../redis-keys.js";

/** Most expired reservations one script call releases; the rest go on the next calls. */
export const PURGE_LIMIT = 100;

export interface BillingSettings {
  usageRetentionDays: number;
  lateSettlementSeconds: number;
  /** Most recent requests kept per key (0: none). */
  requestLogMaxPerKey: number;
  /** Days a key's recent-requests list is kept after its latest request. */
  requestLogRetentionDays: number;
}

/** What the billing scripts' calls share. */
export interface BillingConnection {
  redis: RedisClient;
  keys: RedisKeys;
  settings: BillingSettings;
  events: EventStore;
  observe: RedisObserver | undefined;
  replicaId: string;
}
