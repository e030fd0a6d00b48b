// Timing of Redis operations on the request path, published on the redis.operation channel
// (core/channels.ts) for whoever watches (the metrics). While nobody subscribes, no time is taken.

import { performance } from "node:perf_hooks";
import type { GatewayEvents } from "../../core/channels.js";

/** Where a store's timings go: its gateway's events. */
export type RedisObserver = Pick<GatewayEvents, "listening" | "publish">;

/** Runs `work`, publishing its duration (success or failure) under `operation` while anyone listens. */
export async function timed<T>(
  observe: RedisObserver | undefined,
  operation: string,
  work: () => Promise<T>,
): Promise<T> {
  if (observe === undefined || !observe.listening("redis.operation")) return work();
  const started = performance.now();
  try {
    return await work();
  } finally {
    observe.publish("redis.operation", { operation, seconds: (performance.now() - started) / 1000 });
  }
}
