// The settlement queue's hooks as channels: each hook publishes its own settlement.* channel with what it was
// told, so that the observer hears the queue without being handed to it.

import { describe, expect, it } from "vitest";
import { settlementChannels } from "../../src/billing/settlement-channels.js";
import { type ChannelName, GatewayEvents, subscribeTo } from "../../src/core/channels.js";

describe("settlementChannels", () => {
  it("publishes every hook on its channel", () => {
    const events = new GatewayEvents();
    const heard: [ChannelName, Record<string, unknown>][] = [];
    const names: ChannelName[] = [
      "settlement.settled",
      "settlement.retrying",
      "settlement.failed",
      "settlement.unreplicated",
      "settlement.replayed",
      "settlement.waiting",
      "settlement.recovered",
      "settlement.given_up",
      "settlement.hook_failed",
    ];
    const stops = names.map((name) =>
      subscribeTo(
        events,
        name,
        ({ emitter: _emitter, ...fields }) => heard.push([name, fields]),
        (_name, error) => {
          throw error;
        },
      ),
    );
    const hooks = settlementChannels(events);
    const settlement = { reservationId: "r1" } as never;
    const result = { duplicate: false };
    const error = new Error("ECONNREFUSED");
    hooks.settled?.(settlement, result);
    hooks.retrying?.(settlement, error);
    hooks.failed?.(settlement, error);
    hooks.unreplicated?.([settlement]);
    hooks.replayed?.(settlement);
    hooks.waiting?.("redis", 2);
    hooks.recovered?.(750);
    hooks.givenUp?.([settlement]);
    hooks.hookFailed?.("settled", error);
    for (const stop of stops) stop();
    expect(heard).toEqual([
      ["settlement.settled", { settlement, result }],
      ["settlement.retrying", { settlement, error }],
      ["settlement.failed", { settlement, error }],
      ["settlement.unreplicated", { settlements: [settlement] }],
      ["settlement.replayed", { settlement }],
      ["settlement.waiting", { reason: "redis", settlements: 2 }],
      ["settlement.recovered", { waitedMs: 750 }],
      ["settlement.given_up", { settlements: [settlement] }],
      ["settlement.hook_failed", { hook: "settled", error }],
    ]);
  });
});
