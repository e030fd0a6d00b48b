// The declared events: every channel is Node's own diagnostics channel named tunnel-gateway:<name>, a message
// reaches only the subscribers of the GatewayEvents that published it, and a subscriber that throws never
// reaches the publisher.

import { channel, subscribe, unsubscribe } from "node:diagnostics_channel";
import { describe, expect, it } from "vitest";
import {
  CHANNEL_NAMES,
  CHANNELS,
  type ChannelName,
  channelName,
  GatewayEvents,
  subscribeTo,
} from "../../src/core/channels.js";

describe("the declared channels", () => {
  it("names every channel tunnel-gateway:<name>, each with what it tells", () => {
    expect(CHANNEL_NAMES.length).toBeGreaterThan(0);
    for (const name of CHANNEL_NAMES) {
      expect(channelName(name)).toBe(`tunnel-gateway:${name}`);
      expect(CHANNELS[name].length).toBeGreaterThan(10);
    }
  });

  it("publishes on Node's channel, where any tool may subscribe, with the emitter named", () => {
    const events = new GatewayEvents();
    const heard: unknown[] = [];
    const listener = (message: unknown) => heard.push(message);
    subscribe("tunnel-gateway:reservations.expired", listener);
    expect(events.listening("reservations.expired")).toBe(true);
    events.publish("reservations.expired", { count: 3 });
    unsubscribe("tunnel-gateway:reservations.expired", listener);
    expect(heard).toEqual([{ count: 3, emitter: events }]);
  });

  it("hands a subscriber only its own gateway's messages", () => {
    const mine = new GatewayEvents();
    const other = new GatewayEvents();
    const counts: number[] = [];
    const stop = subscribeTo(mine, "reservations.expired", (m) => counts.push(m.count), fail);
    other.publish("reservations.expired", { count: 1 });
    mine.publish("reservations.expired", { count: 2 });
    // Another tool's message on our channel is not ours to read.
    channel("tunnel-gateway:reservations.expired").publish("not ours");
    stop();
    mine.publish("reservations.expired", { count: 4 });
    expect(counts).toEqual([2]);
  });

  it("reports a subscriber that throws, and the publisher carries on", () => {
    const events = new GatewayEvents();
    const failures: [ChannelName, unknown][] = [];
    const broken = new Error("a metric broke");
    const stop = subscribeTo(
      events,
      "redis.operation",
      () => {
        throw broken;
      },
      (name, error) => failures.push([name, error]),
    );
    expect(() => events.publish("redis.operation", { operation: "reserve", seconds: 0.001 })).not.toThrow();
    stop();
    expect(failures).toEqual([["redis.operation", broken]]);
  });

  it("publishes nothing while nobody listens", () => {
    const events = new GatewayEvents();
    expect(events.listening("settlement.replayed")).toBe(false);
    expect(() => events.publish("settlement.replayed", { settlement: {} })).not.toThrow();
  });
});

function fail(name: ChannelName, error: unknown): never {
  throw new Error(`${name}: ${String(error)}`);
}
