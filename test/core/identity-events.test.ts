// The identity events' declarations and their publishing on Node's diagnostics channels: one channel per
// event under tunnel-gateway:identity:, a message only while someone listens, carrying the emitter, and the
// level of each outcome. (Their subscribers, the log line and the metric: observability/identity-events.test.ts.)

import { channel, subscribe, unsubscribe } from "node:diagnostics_channel";
import { describe, expect, it } from "vitest";
import {
  IDENTITY_CHANNELS,
  IDENTITY_EVENT_NAMES,
  IDENTITY_EVENTS,
  type IdentityEvent,
  IdentityEvents,
  identityChannelName,
  levelOf,
} from "../../src/core/identity-events.js";

describe("identity events", () => {
  it("each have a channel of their own, the one Node hands out by that name", () => {
    expect(IDENTITY_EVENT_NAMES).toEqual(Object.keys(IDENTITY_EVENTS));
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

  it("are logged at their outcome's declared level, and at warn for an outcome not declared", () => {
    expect(levelOf("sign_in.password", "success")).toBe("info");
    expect(levelOf("sign_in.password", "wrong_password")).toBe("warn");
    expect(levelOf("unlock", "operator")).toBe("info");
    expect(levelOf("unlock", "something_else")).toBe("warn");
    for (const event of IDENTITY_EVENT_NAMES)
      for (const [outcome, level] of Object.entries(IDENTITY_EVENTS[event].outcomes))
        expect(levelOf(event, outcome)).toBe(level);
  });
});
