// The declared events: every channel is Node's own diagnostics channel named tunnel-gateway:<name> (an identity
// event's tunnel-gateway:identity:<event>), all of them in one list; a message reaches only the subscribers of
// the GatewayEvents (or IdentityEvents) that published it, and a subscriber that throws never reaches the
// publisher.

import { channel, subscribe, unsubscribe } from "node:diagnostics_channel";
import { describe, expect, it } from "vitest";
import {
  CHANNEL_NAMES,
  CHANNELS,
  type ChannelName,
  channelName,
  EVERY_CHANNEL,
  GatewayEvents,
  IDENTITY_CHANNELS,
  type IdentityEvent,
  IdentityEvents,
  identityChannelName,
  subscribeTo,
} from "../../src/core/channels.js";
import { IDENTITY_EVENT_NAMES } from "../../src/core/identity-events.js";

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

describe("every channel", () => {
  it("is in one list, once: the gateway's own channels, then one per identity event with its outcomes", () => {
    const names = EVERY_CHANNEL.map((entry) => entry.channel);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([
      ...CHANNEL_NAMES.map(channelName),
      ...IDENTITY_EVENT_NAMES.map(identityChannelName),
    ]);
    for (const { channel: name, tells } of EVERY_CHANNEL) {
      expect(name).toMatch(/^tunnel-gateway:[\w.:]+$/);
      expect(tells.length).toBeGreaterThan(10);
    }
    expect(EVERY_CHANNEL.find((entry) => entry.channel === "tunnel-gateway:identity:lockout")?.tells).toBe(
      "sign-in locked after too many failures; outcomes: email, address (identity/)",
    );
  });
});

describe("identity events' channels", () => {
  it("each have a channel of their own, the one Node hands out by that name", () => {
    for (const event of IDENTITY_EVENT_NAMES) {
      expect(identityChannelName(event)).toBe(`tunnel-gateway:identity:${event}`);
      expect(IDENTITY_CHANNELS[event]).toBe(channel(identityChannelName(event)));
    }
  });

  it("are published with their fields, outcome and emitter to whoever subscribes", () => {
    const heard: IdentityEvent[] = [];
    const listener = (message: unknown) => heard.push(message as IdentityEvent);
    const events = new IdentityEvents();
    events.publish("lockout", "email"); // nobody listens yet: nothing is built or sent
    subscribe(identityChannelName("lockout"), listener);
    try {
      events.publish("lockout", "address", { address: "10.0.0.1" });
      events.publish("unlock", "operator"); // another channel
    } finally {
      unsubscribe(identityChannelName("lockout"), listener);
    }
    events.publish("lockout", "email");
    expect(heard).toEqual([{ address: "10.0.0.1", event: "lockout", outcome: "address", emitter: events }]);
  });
});

function fail(name: ChannelName, error: unknown): never {
  throw new Error(`${name}: ${String(error)}`);
}
