// The subscribers of the declared events (core/channels.ts) for one gateway: Redis timings into the metrics'
// histogram (while metrics are on), expired reservations and every settlement event into the observer's log
// lines and metrics. Subscribed once at start, unsubscribed at close.

import type { Logger } from "pino";
import { type ChannelName, type GatewayEvents, subscribeTo } from "../core/channels.js";
import type { Settled, Settlement } from "../store/billing/settle-script.js";
import type { GatewayMetrics } from "./gateway-metrics.js";
import type { RequestObserver, SettlementObserver } from "./observer.js";

export interface ChannelSubscribers {
  /** The Redis timings' histogram; null while metrics are off (then no timing is taken). */
  metrics: Pick<GatewayMetrics, "redisOperation"> | null;
  observer: Pick<RequestObserver, "expiredReservations"> &
    Pick<
      SettlementObserver,
      | "settled"
      | "retrying"
      | "failed"
      | "unreplicated"
      | "replayed"
      | "waiting"
      | "recovered"
      | "givenUp"
      | "hookFailed"
    >;
  logger: Logger;
}

/** Subscribes to `events` until the returned function is called. */
export function observeGatewayEvents(events: GatewayEvents, subscribers: ChannelSubscribers): () => void {
  const { metrics, observer, logger } = subscribers;
  const failed = (name: ChannelName, error: unknown) =>
    logger.error({ err: error, channel: name }, "reporting an event failed");
  // The settlement messages carry the store's types (store/billing/settle-script.ts): the queue publishes nothing else.
  const stops = [
    subscribeTo(events, "reservations.expired", (m) => observer.expiredReservations(m.count), failed),
    subscribeTo(
      events,
      "settlement.settled",
      (m) => observer.settled(m.settlement as Settlement, m.result as Settled),
      failed,
    ),
    subscribeTo(
      events,
      "settlement.retrying",
      (m) => observer.retrying(m.settlement as Settlement, m.error),
      failed,
    ),
    subscribeTo(
      events,
      "settlement.failed",
      (m) => observer.failed(m.settlement as Settlement, m.error),
      failed,
    ),
    subscribeTo(
      events,
      "settlement.unreplicated",
      (m) => observer.unreplicated(m.settlements as readonly Settlement[]),
      failed,
    ),
    subscribeTo(events, "settlement.replayed", (m) => observer.replayed(m.settlement as Settlement), failed),
    subscribeTo(events, "settlement.waiting", (m) => observer.waiting(m.reason, m.settlements), failed),
    subscribeTo(events, "settlement.recovered", (m) => observer.recovered(m.waitedMs), failed),
    subscribeTo(
      events,
      "settlement.given_up",
      (m) => observer.givenUp(m.settlements as readonly Settlement[]),
      failed,
    ),
    subscribeTo(events, "settlement.hook_failed", (m) => observer.hookFailed(m.hook, m.error), failed),
  ];
  if (metrics !== null) {
    stops.push(
      subscribeTo(events, "redis.operation", (m) => metrics.redisOperation(m.operation, m.seconds), failed),
    );
  }
  return () => {
    for (const stop of stops) stop();
  };
}
