// /readyz: whether this replica should get traffic. Not while it drains, nor before its Redis is connected
// and checked, nor while Redis does not answer a PING within a second.

import type { RedisClient } from "../store/redis.js";

const READINESS_TIMEOUT_MS = 1000;

export interface ReadinessState {
  draining(): boolean;
  /** Redis has passed the start-up checks. */
  checked(): boolean;
}

/** null when ready to take traffic, else why not. */
export function readinessOf(redis: RedisClient, state: ReadinessState): () => Promise<string | null> {
  return async () => {
    if (state.draining()) return "shutting down";
    if (redis.status !== "ready" || !state.checked()) return "redis unavailable";
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        redis.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(reject, READINESS_TIMEOUT_MS, new Error("timeout"));
        }),
      ]);
      return null;
    } catch {
      return "redis unavailable";
    } finally {
      clearTimeout(timer);
    }
  };
}
