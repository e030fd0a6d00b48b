// Every channel the gateway publishes on, declared and named in this one place (as undici lists its channels
// in lib/core/diagnostics.js); EVERY_CHANNEL below is the whole list. Each is a Node diagnostics channel:
// - the gateway's own events, `tunnel-gateway:<name>` (CHANNELS): what a lower layer tells the layers above
//   it. The code where it happens publishes it through its gateway's GatewayEvents; the subscribers — the
//   metrics and the observer (observability/gateway-channels.ts), or any tool that subscribes to the
//   channel, OpenTelemetry's included — know nothing of where. Nothing climbs back up through a closure:
//   this list is the whole of what does;
// - the identity events, `tunnel-gateway:identity:<event>`, each declared with its outcomes and their log
//   levels in core/identity-events.ts and published through an IdentityEvents (subscribed by
//   observability/identity-events.ts).
// A message carries no secret (no key, no token), and names the GatewayEvents or IdentityEvents that
// published it, so that two gateways in one process (the tests' replicas) each hear only their own.

import { type Channel, channel } from "node:diagnostics_channel";
import {
  IDENTITY_EVENT_NAMES,
  IDENTITY_EVENTS,
  type IdentityEventFields,
  type IdentityEventName,
  type OutcomeOf,
} from "./identity-events.js";

/** What each of the gateway's own channels tells, in one line. */
export const CHANNELS = {
  "redis.operation": "a Redis operation of the request path took `seconds` (store/: the metrics' histogram)",
  "reservations.expired":
    "reserving found `count` reservations of an account expired, never settled (billing/)",
  "settlement.settled": "a settlement was written, and acknowledged by the replicas asked for (billing/)",
  "settlement.retrying": "a settlement failed and waits for its retry (Redis away) (billing/)",
  "settlement.failed": "a settlement failed in a way retrying does not fix, and was dropped (billing/)",
  "settlement.unreplicated":
    "no replica acknowledged settlements in time; they will be sent again (billing/)",
  "settlement.replayed": "a settlement whose first write a failover lost was made again (billing/)",
  "settlement.waiting":
    "the settlement queue started waiting for Redis or a replica: once per wait, however long (billing/)",
  "settlement.recovered": "nothing waits any more: every settlement that did was done or given up (billing/)",
  "settlement.given_up":
    "no replica acknowledged settlements within billing.lateSettlementSeconds: never sent again (billing/)",
  "settlement.hook_failed": "something told of a settlement threw; the queue carried on (billing/)",
} as const;

export type ChannelName = keyof typeof CHANNELS;

/**
 * What each channel's messages carry besides `emitter`. The settlement's own types live with the store
 * (store/billing/settle-script.ts): a subscriber that reads them names them there.
 */
export interface ChannelMessages {
  "redis.operation": { operation: string; seconds: number };
  "reservations.expired": { count: number };
  "settlement.settled": { settlement: unknown; result: unknown };
  "settlement.retrying": { settlement: unknown; error: unknown };
  "settlement.failed": { settlement: unknown; error: unknown };
  "settlement.unreplicated": { settlements: readonly unknown[] };
  "settlement.replayed": { settlement: unknown };
  "settlement.waiting": { reason: "redis" | "replica"; settlements: number };
  "settlement.recovered": { waitedMs: number };
  "settlement.given_up": { settlements: readonly unknown[] };
  "settlement.hook_failed": { hook: string; error: unknown };
}

/** A message as published: its fields and the GatewayEvents that published it. */
export type ChannelMessage<Name extends ChannelName> = ChannelMessages[Name] & { emitter: GatewayEvents };

export const CHANNEL_NAMES = Object.keys(CHANNELS) as ChannelName[];

/** What every channel's full name begins with. */
const PREFIX = "tunnel-gateway:";

export function channelName(name: ChannelName): string {
  return `${PREFIX}${name}`;
}

export function identityChannelName(event: IdentityEventName): string {
  return `${PREFIX}identity:${event}`;
}

/**
 * Every channel the gateway publishes on, by its full name, with what it tells: the gateway's own, then the
 * identity events with their outcomes. docs/development.md's table of events is this list; a test keeps the
 * two equal.
 */
export const EVERY_CHANNEL: readonly { channel: string; tells: string }[] = [
  ...CHANNEL_NAMES.map((name) => ({ channel: channelName(name), tells: CHANNELS[name] })),
  ...IDENTITY_EVENT_NAMES.map((event) => ({
    channel: identityChannelName(event),
    tells: `${IDENTITY_EVENTS[event].message}; outcomes: ${Object.keys(IDENTITY_EVENTS[event].outcomes).join(", ")} (identity/)`,
  })),
];

const CHANNEL_OF: Readonly<Record<ChannelName, Channel>> = Object.fromEntries(
  CHANNEL_NAMES.map((name) => [name, channel(channelName(name))]),
) as Record<ChannelName, Channel>;

/** Where one gateway's lower layers publish. With nobody subscribed, publishing costs one property read. */
export class GatewayEvents {
  /** Whether anyone listens on `name` (so that a timing need not even be taken). */
  listening(name: ChannelName): boolean {
    return CHANNEL_OF[name].hasSubscribers;
  }

  /**
   * Publishes `message`, a literal of the caller's own that nothing else holds: it is given its `emitter` in
   * place rather than copied (no second object per event).
   */
  publish<Name extends ChannelName>(name: Name, message: ChannelMessages[Name]): void {
    const target = CHANNEL_OF[name];
    if (!target.hasSubscribers) return;
    const published = message as ChannelMessages[Name] & { emitter?: GatewayEvents };
    published.emitter = this;
    target.publish(published);
  }
}

/**
 * Subscribes `handler` to `events`' messages on `name` until the returned function is called. A handler that
 * throws is reported to `failed`: a subscriber's error never reaches the code that published (where Node
 * would otherwise rethrow it as an uncaught exception).
 */
export function subscribeTo<Name extends ChannelName>(
  events: GatewayEvents,
  name: Name,
  handler: (message: ChannelMessage<Name>) => void,
  failed: (name: ChannelName, error: unknown) => void,
): () => void {
  const listener = (message: unknown) => {
    // Published by GatewayEvents.publish above, or by another tool on our channel (not ours to read).
    if (typeof message !== "object" || message === null) return;
    const published = message as ChannelMessage<Name>;
    if (published.emitter !== events) return;
    try {
      handler(published);
    } catch (error) {
      failed(name, error);
    }
  };
  const target = CHANNEL_OF[name];
  target.subscribe(listener);
  return () => void target.unsubscribe(listener);
}

export interface IdentityEvent extends IdentityEventFields {
  event: IdentityEventName;
  outcome: string;
  /** The IdentityEvents that published it: a subscriber hears only its own gateway's events. */
  emitter: IdentityEvents;
}

export const IDENTITY_CHANNELS: Readonly<Record<IdentityEventName, Channel>> = Object.fromEntries(
  IDENTITY_EVENT_NAMES.map((event) => [event, channel(identityChannelName(event))]),
) as Record<IdentityEventName, Channel>;

/**
 * Where one gateway's (or one CLI run's) identity code publishes its events. Channels are process-wide;
 * the emitter in each event lets two gateways in one process (the tests' replicas) each report only their
 * own.
 */
export class IdentityEvents {
  publish<E extends IdentityEventName>(
    event: E,
    outcome: OutcomeOf<E>,
    fields: IdentityEventFields = {},
  ): void {
    const target = IDENTITY_CHANNELS[event];
    if (!target.hasSubscribers) return;
    const message: IdentityEvent = { ...fields, event, outcome, emitter: this };
    target.publish(message);
  }
}
