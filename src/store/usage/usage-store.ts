// Reading the daily usage counters the settle script writes: one hash per key and calendar day (billing time
// zone) of integer counters — requests by latency bucket, tokens, cost in µ₽, errors, estimated requests, and
// the same by model — and the account's counters of each month.

import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";

/** One key's counters for one day, field by field as the settle script names them; all integers, cost in µ₽. */
export type UsageCounters = Readonly<Record<string, number>>;

export class UsageStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /**
   * The counters of each of the account's keys `keyIds` on each of `days` (YYYY-MM-DD), in one round trip:
   * `result[d][k]` for days[d] and keyIds[k], empty for a day without requests.
   */
  async counters(
    accountId: string,
    keyIds: readonly string[],
    days: readonly string[],
  ): Promise<UsageCounters[][]> {
    if (days.length === 0 || keyIds.length === 0) return days.map(() => []);
    const pipeline = this.redis.pipeline();
    for (const day of days) {
      for (const keyId of keyIds) pipeline.hgetall(this.keys.usage(accountId, keyId, day));
    }
    const results = (await pipeline.exec()) ?? [];
    return days.map((_, d) =>
      keyIds.map((_, k) => {
        const [error, hash] = results[d * keyIds.length + k] ?? [null, {}];
        if (error) throw error;
        return integers(hash as Record<string, string>);
      }),
    );
  }

  /**
   * Each account's counters of one month (YYYY-MM), kept by the settle script beside the daily ones so that
   * the operator's view of every account reads one hash per account. Each account is its own hash slot, so
   * the reads go out side by side rather than in one pipeline (which a Cluster would refuse).
   */
  async months(accountIds: readonly string[], month: string): Promise<MonthCounters[]> {
    return Promise.all(
      accountIds.map(async (accountId) => {
        const [requests, cost] = await this.redis.hmget(
          this.keys.month(accountId, month),
          "requests",
          "cost",
        );
        return { requests: Number(requests ?? 0), cost: Number(cost ?? 0) };
      }),
    );
  }
}

/** An account's requests and cost (µ₽) in one month, from its month hash. */
export interface MonthCounters {
  requests: number;
  cost: number;
}

function integers(hash: Record<string, string>): UsageCounters {
  const counters: Record<string, number> = {};
  for (const [field, value] of Object.entries(hash)) counters[field] = Number(value);
  return counters;
}
