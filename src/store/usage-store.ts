// Reading a key's daily usage counters (written by the settle script) for the dashboard and the admin API.

import { rublesForJson } from "../billing/money.js";
import { LATENCY_BUCKETS_MS } from "./billing-store.js";
import type { RedisKeys } from "./redis-keys.js";
import type { RedisClient } from "./scripts.js";

export interface DailyUsage {
  date: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Rubles. */
  cost: number;
  errors: number;
  estimated: number;
  avg_latency_ms: number | null;
  /** Upper bound of the latency bucket holding the 95th percentile; null above the last bound or with no requests. */
  p95_latency_ms: number | null;
  p50_latency_ms: number | null;
}

const BUCKET_FIELDS = [
  ...LATENCY_BUCKETS_MS.map((bound) => [`lat_le_${bound}`, bound] as const),
  ["lat_le_inf", null] as const,
];

export class UsageStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** One entry per day in `days` (YYYY-MM-DD, in the billing time zone), zeros for days without requests. */
  async daily(accountId: string, keyId: string, days: readonly string[]): Promise<DailyUsage[]> {
    if (days.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const day of days) pipeline.hgetall(this.keys.usage(accountId, keyId, day));
    const results = (await pipeline.exec()) ?? [];
    return days.map((date, i) => {
      const [error, hash] = results[i] ?? [null, {}];
      if (error) throw error;
      return summarise(date, hash as Record<string, string>);
    });
  }
}

function summarise(date: string, hash: Record<string, string>): DailyUsage {
  const counts = BUCKET_FIELDS.map(([field, bound]) => ({ bound, count: Number(hash[field] ?? 0) }));
  const requests = counts.reduce((sum, b) => sum + b.count, 0);
  const int = (field: string) => Number(hash[field] ?? 0);
  return {
    date,
    requests,
    prompt_tokens: int("prompt_tokens"),
    completion_tokens: int("completion_tokens"),
    cost: rublesForJson(int("cost")),
    errors: int("errors"),
    estimated: int("estimated"),
    avg_latency_ms: requests === 0 ? null : Math.round(int("latency_ms_sum") / requests),
    p50_latency_ms: quantile(counts, requests, 0.5),
    p95_latency_ms: quantile(counts, requests, 0.95),
  };
}

function quantile(
  counts: { bound: number | null; count: number }[],
  total: number,
  q: number,
): number | null {
  if (total === 0) return null;
  let seen = 0;
  for (const { bound, count } of counts) {
    seen += count;
    if (seen >= q * total) return bound;
  }
  return null;
}
