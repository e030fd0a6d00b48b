// The declared events' subscribers for one gateway: Redis timings into the metrics while they are on, expired
// reservations and settlement events into the observer; another gateway's events, and any after the returned
// stop, are not this one's; a subscriber that throws is logged, never thrown at the publisher.

import { describe, expect, it } from "vitest";
import { GatewayEvents } from "../../src/core/channels.js";
import { observeGatewayEvents } from "../../src/observability/gateway-channels.js";
import { createLogger } from "../../src/observability/logger.js";

function recorder() {
  const calls: unknown[][] = [];
  const record =
    (name: string) =>
    (...args: unknown[]) =>
      void calls.push([name, ...args]);
  const observer = {
    expiredReservations: record("expiredReservations"),
    settled: record("settled"),
    retrying: record("retrying"),
    failed: record("failed"),
    unreplicated: record("unreplicated"),
    replayed: record("replayed"),
    waiting: record("waiting"),
    recovered: record("recovered"),
    givenUp: record("givenUp"),
    hookFailed: record("hookFailed"),
  };
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger("info", { write: (line: string) => void logs.push(JSON.parse(line)) });
  return { calls, observer, metrics: { redisOperation: record("redisOperation") }, logger, logs };
}

describe("observeGatewayEvents", () => {
  it("hands each event of its gateway to the metrics and the observer, until stopped", () => {
    const r = recorder();
    const events = new GatewayEvents();
    const other = new GatewayEvents();
    const stop = observeGatewayEvents(events, r);
    const settlement = { reservationId: "r1" };
    const error = new Error("ECONNREFUSED");
    events.publish("redis.operation", { operation: "reserve", seconds: 0.002 });
    events.publish("reservations.expired", { count: 2 });
    events.publish("settlement.settled", { settlement, result: { duplicate: false } });
    events.publish("settlement.retrying", { settlement, error });
    events.publish("settlement.failed", { settlement, error });
    events.publish("settlement.unreplicated", { settlements: [settlement] });
    events.publish("settlement.replayed", { settlement });
    events.publish("settlement.waiting", { reason: "replica", settlements: 3 });
    events.publish("settlement.recovered", { waitedMs: 1500 });
    events.publish("settlement.given_up", { settlements: [settlement] });
    events.publish("settlement.hook_failed", { hook: "settled", error });
    other.publish("reservations.expired", { count: 9 });
    stop();
    events.publish("reservations.expired", { count: 5 });
    expect(r.calls).toEqual([
      ["redisOperation", "reserve", 0.002],
      ["expiredReservations", 2],
      ["settled", settlement, { duplicate: false }],
      ["retrying", settlement, error],
      ["failed", settlement, error],
      ["unreplicated", [settlement]],
      ["replayed", settlement],
      ["waiting", "replica", 3],
      ["recovered", 1500],
      ["givenUp", [settlement]],
      ["hookFailed", "settled", error],
    ]);
  });

  it("takes no Redis timings while metrics are off", () => {
    const r = recorder();
    const events = new GatewayEvents();
    const stop = observeGatewayEvents(events, { ...r, metrics: null });
    events.publish("redis.operation", { operation: "reserve", seconds: 0.002 });
    stop();
    expect(r.calls).toEqual([]);
  });

  it("logs a subscriber that throws, and the publisher carries on", () => {
    const r = recorder();
    const events = new GatewayEvents();
    const stop = observeGatewayEvents(events, {
      ...r,
      observer: {
        ...r.observer,
        expiredReservations: () => {
          throw new Error("a metric broke");
        },
      },
    });
    expect(() => events.publish("reservations.expired", { count: 1 })).not.toThrow();
    stop();
    expect(r.logs).toContainEqual(
      expect.objectContaining({ msg: "reporting an event failed", channel: "reservations.expired" }),
    );
  });
});
