// Node's timers take a delay of at most 2^31 - 1 ms (about 24.8 days): a larger one is set to 1 ms (with a
// TimeoutOverflowWarning), which turns a timer derived from a large setting — a reservation TTL, a check
// interval — into a busy loop. Every delay derived from a setting goes through timerDelay.

/** The longest delay setTimeout and setInterval honour (ms). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` as a delay Node honours: whole, at least `min`, at most MAX_TIMER_MS (NaN: `min`). */
export function timerDelay(ms: number, min = 0): number {
  if (Number.isNaN(ms)) return min;
  return Math.min(MAX_TIMER_MS, Math.max(min, Math.floor(ms)));
}
