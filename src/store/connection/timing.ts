// Timing of Redis operations on the request path, reported to whoever watches (the metrics). Stores built
// without an observer pay nothing.

import { performance } from "node:perf_hooks";

export type RedisObserver = (operation: string, seconds: number) => void;

/** Runs `work`, reporting its duration (success or failure) to `observe` under `operation`. */
export async function timed<T>(
  observe: RedisObserver | undefined,
  operation: string,
  work: () => Promise<T>,
): Promise<T> {
  if (!observe) return work();
  const started = performance.now();
  try {
    return await work();
  } finally {
    observe(operation, (performance.now() - started) / 1000);
  }
}
