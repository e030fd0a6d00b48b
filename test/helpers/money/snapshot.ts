// One consistent read of an account's money in Redis (a MULTI: no script runs in between), and the ledger
// Redis keeps beside it (the daily usage counters, the month's counters), for the invariants.

import type { Redis } from "ioredis";
import type { RedisClient } from "../../../src/store/connection/redis.js";
import type { RedisKeys } from "../../../src/store/redis-keys.js";
import type { Snapshot } from "./system.js";

export async function readSnapshot(
  redis: RedisClient,
  keys: RedisKeys,
  accountId: string,
  keyIds: readonly string[],
): Promise<Snapshot> {
  const client = redis as Redis;
  // Every replica's settlement hash, the killed ones' too: their ledgers add up to Σ charged.
  const settled = await client.keys(keys.settlementMarkers(accountId, "*"));
  const multi = client
    .multi()
    .hgetall(keys.account(accountId))
    .hgetall(keys.reserved(accountId))
    .hgetall(keys.reservationRecords(accountId));
  for (const keyId of keyIds) multi.hgetall(keys.key(accountId, keyId));
  for (const hash of settled) multi.hget(hash, "=charged");
  const replies = ((await multi.exec()) ?? []).map(([error, value]) => {
    if (error) throw error;
    return value;
  });
  const [account = {}, reserved = {}, records = {}, ...rest] = replies as Record<string, string>[];
  const keyHashes = rest.slice(0, keyIds.length);
  const ledgers = (replies.slice(3 + keyIds.length) as (string | null)[]).map((v) => Number(v ?? 0));
  return {
    account,
    reserved,
    records,
    keys: Object.fromEntries(keyIds.map((keyId, i) => [keyId, keyHashes[i] ?? {}])),
    settledLedger: ledgers.reduce((sum, v) => sum + v, 0),
  };
}

/** Σ the cost counted in the keys' daily usage counters of `days`, and in the account's month counters. */
export async function ledger(
  redis: RedisClient,
  keys: RedisKeys,
  accountId: string,
  keyIds: readonly string[],
  days: readonly string[],
): Promise<{ daily: number; monthly: number }> {
  const client = redis as Redis;
  let daily = 0;
  for (const keyId of keyIds) {
    for (const day of days)
      daily += Number((await client.hget(keys.usage(accountId, keyId, day), "cost")) ?? 0);
  }
  let monthly = 0;
  for (const month of new Set(days.map((day) => day.slice(0, 7)))) {
    monthly += Number((await client.hget(keys.month(accountId, month), "cost")) ?? 0);
  }
  return { daily, monthly };
}
