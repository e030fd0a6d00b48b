// The identity events' declarations: each with outcomes and a message, and the level of each outcome. (Their
// channels and publishing: channels.test.ts; their subscribers, the log line and the metric:
// observability/identity-events.test.ts.)

import { describe, expect, it } from "vitest";
import { IDENTITY_EVENT_NAMES, IDENTITY_EVENTS, levelOf } from "../../src/core/identity-events.js";

describe("identity events", () => {
  it("each declare a message and at least one outcome", () => {
    expect(IDENTITY_EVENT_NAMES).toEqual(Object.keys(IDENTITY_EVENTS));
    for (const event of IDENTITY_EVENT_NAMES) {
      expect(IDENTITY_EVENTS[event].message).toMatch(/\S/);
      expect(Object.keys(IDENTITY_EVENTS[event].outcomes).length).toBeGreaterThan(0);
    }
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
