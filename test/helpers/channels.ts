// A GatewayEvents with a recorder subscribed to its Redis timings (core/channels.ts), for tests of the code
// that publishes them: each operation as it was published, with its duration in seconds. And a recorder of
// one IdentityEvents' identity events, for tests of the code that reports them.

import { subscribe, unsubscribe } from "node:diagnostics_channel";
import {
  GatewayEvents,
  type IdentityEvent,
  type IdentityEvents,
  identityChannelName,
  subscribeTo,
} from "../../src/core/channels.js";
import { IDENTITY_EVENT_NAMES } from "../../src/core/identity-events.js";

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

/**
 * Every identity event `events` publishes (core/channels.ts), as the tests compare them: the event, its
 * outcome and its fields, in order. Events of any other IdentityEvents are not seen.
 */
export function identityEventsOf(events: IdentityEvents): {
  seen: { event: string; outcome: string; [field: string]: unknown }[];
  stop(): void;
} {
  const seen: { event: string; outcome: string; [field: string]: unknown }[] = [];
  const handler = (message: unknown) => {
    const { emitter, ...event } = message as IdentityEvent;
    if (emitter === events) seen.push(event);
  };
  for (const name of IDENTITY_EVENT_NAMES) subscribe(identityChannelName(name), handler);
  return {
    seen,
    stop: () => {
      for (const name of IDENTITY_EVENT_NAMES) unsubscribe(identityChannelName(name), handler);
    },
  };
}
