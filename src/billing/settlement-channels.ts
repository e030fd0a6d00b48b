// The settlement queue's hooks as the declared events (core/channels.ts): what the queue tells of the
// settlements it handles is published on the settlement.* channels, where the observer (its log lines and
// metrics) subscribes. The lease book and the books watch, which keep money right rather than report it,
// stay hooks of their own, called first (gateway assembly composes them).

import type { GatewayEvents } from "../core/channels.js";
import type { SettlementHooks } from "./settlement-hooks.js";

export function settlementChannels(events: Pick<GatewayEvents, "publish">): SettlementHooks {
  return {
    settled: (settlement, result) => events.publish("settlement.settled", { settlement, result }),
    retrying: (settlement, error) => events.publish("settlement.retrying", { settlement, error }),
    failed: (settlement, error) => events.publish("settlement.failed", { settlement, error }),
    unreplicated: (settlements) => events.publish("settlement.unreplicated", { settlements }),
    replayed: (settlement) => events.publish("settlement.replayed", { settlement }),
    waiting: (reason, settlements) => events.publish("settlement.waiting", { reason, settlements }),
    recovered: (waitedMs) => events.publish("settlement.recovered", { waitedMs }),
    givenUp: (settlements) => events.publish("settlement.given_up", { settlements }),
    hookFailed: (hook, error) => events.publish("settlement.hook_failed", { hook, error }),
  };
}
