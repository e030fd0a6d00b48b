// A GatewayEvents with a recorder subscribed to its Redis timings (core/channels.ts), for tests of the code
// that publishes them: each operation as it was published, with its duration in seconds.

import { GatewayEvents, subscribeTo } from "../../src/core/channels.js";

export function redisTimings(): {
  events: GatewayEvents;
  seen: [operation: string, seconds: number][];
  stop(): void;
} {
  const events = new GatewayEvents();
  const seen: [string, number][] = [];
  const stop = subscribeTo(
    events,
    "redis.operation",
    (message) => seen.push([message.operation, message.seconds]),
    (_name, error) => {
      throw error;
    },
  );
  return { events, seen, stop };
}
