// Every event a lower layer tells the layers above it, declared once (as undici lists its channels in
// lib/core/diagnostics.js): each is a Node diagnostics channel, `tunnel-gateway:<name>`. The code where it
// happens publishes it through its gateway's GatewayEvents; the subscribers — the metrics and the observer
// (observability/gateway-channels.ts), or any tool that subscribes to the channel, OpenTelemetry's included —
// know nothing of where. Nothing climbs back up through a closure: this list is the whole of what does.
// A message carries no secret (no key, no token), and names the GatewayEvents that published it, so that two
// gateways in one process (the tests' replicas) each hear only their own.

import { type Channel, channel } from "node:diagnostics_channel";

/** What each channel tells, in one line (docs/development.md draws this list; a test keeps the two equal). */
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

export function channelName(name: ChannelName): string {
  return `tunnel-gateway:${name}`;
}

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
