// The alert events' types: the list the configuration, the webhooks and the dashboard offer.

import { describe, expect, it } from "vitest";
import { EVENT_TYPES, isEventType, TEST_EVENT_TYPE } from "../../src/core/event-types.js";

describe("event types", () => {
  it("are recognised as listed, and nothing else", () => {
    for (const type of EVENT_TYPES) expect(isEventType(type)).toBe(true);
    for (const value of [TEST_EVENT_TYPE, "budget", "", null, 1, { type: "key.created" }])
      expect(isEventType(value)).toBe(false);
  });

  it("are each listed once, as area.event", () => {
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    for (const type of EVENT_TYPES) expect(type).toMatch(/^[a-z]+\.[a-z]+$/);
  });
});
