// Reading a key's recent requests (written by the settle script), for the dashboard and the admin API.

import type { RedisKeys } from "./redis-keys.js";
import type { RedisClient } from "./scripts.js";

/** One request as kept in the key's recent-requests list. */
export interface RequestLogEntry {
  at: string;
  request_id: string;
  method: string;
  path: string;
  model: string | null;
  status: number;
  outcome: string;
  prompt_tokens: number;
  completion_tokens: number;
  /** Rubles. */
  cost: number;
  usage_estimated: boolean;
  latency_ms: number;
  upstream_ttfb_ms: number | null;
  /** Only while the key's log_bodies is on, cut to requestLog.maxBodyBytes. */
  request_body?: string;
  response_body?: string;
}

export class RequestLogStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** The key's most recent requests, newest first. */
  async recent(accountId: string, keyId: string, limit: number): Promise<RequestLogEntry[]> {
    const raw = await this.redis.lrange(this.keys.requestLog(accountId, keyId), "0", String(limit - 1));
    return raw.map((line) => JSON.parse(line) as RequestLogEntry);
  }
}
