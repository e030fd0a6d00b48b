// What the key service accepts, checked before anything is read: an update's changes and audit details, and
// the small inputs (period, grace, lifetime, thresholds, switches), each refused with the field's name.

import { describe, expect, it } from "vitest";
import {
  booleanInput,
  graceInput,
  lifetimeInput,
  parsePeriod,
  requestedChanges,
  thresholdsInput,
} from "../../src/services/key-input.js";

describe("requestedChanges", () => {
  it("turns an update into the record's fields and the audit entry's details", () => {
    expect(
      requestedChanges({
        name: "prod",
        budget: "12.5",
        models: ["llama"],
        logBodies: false,
        rpm: 60,
        tpm: null,
      }),
    ).toEqual({
      changes: {
        name: "prod",
        budget: "12500000",
        models: '["llama"]',
        log_bodies: "0",
        rpm: "60",
        tpm: "",
      },
      details: {
        name: "prod",
        budget: "12.5",
        allowed_models: ["llama"],
        log_bodies: false,
        rpm: 60,
        tpm: null,
      },
      lifetime: undefined,
    });
  });

  it("removes a budget, a model list or thresholds given null, and reads a lifetime", () => {
    const { changes, lifetime, windows } = requestedChanges({
      budget: null,
      models: null,
      alertAt: null,
      ttl: "1h",
    });
    // No budget is no window at all: the service writes an empty list of windows.
    expect(changes).toEqual({ models: "", alert_at: "default" });
    expect(windows).toEqual([]);
    expect(lifetime).toBe(3_600_000);
    expect(requestedChanges({ ttl: "never" }).lifetime).toBeNull();
  });

  it("refuses an empty update and a period that is not one, naming what it accepts", () => {
    expect(() => requestedChanges({})).toThrow(/nothing to change: give name, budget, period/);
    expect(() => requestedChanges({ period: "year" })).toThrow(
      'period must be day, week or month; got "year"',
    );
    expect(() => requestedChanges({ rpm: -1 })).toThrow(/rpm must be/);
  });
});

describe("the small inputs", () => {
  it("check periods against the budget, switches, grace, lifetimes and thresholds", () => {
    expect(parsePeriod(undefined, false)).toBe("month");
    expect(parsePeriod("day", true)).toBe("day");
    expect(() => parsePeriod("day", false)).toThrow("period is only meaningful with a budget; give both");
    expect(booleanInput(undefined, "log_bodies")).toBeUndefined();
    expect(() => booleanInput("yes", "log_bodies")).toThrow("log_bodies must be true or false");
    expect(graceInput("0")).toBe(0);
    expect(() => graceInput(5)).toThrow(/grace must be 0 or a duration such as 24h; got 5/);
    expect(() => lifetimeInput(30)).toThrow(/ttl must be a duration such as 30d, or "never"; got 30/);
    expect(thresholdsInput([50, 80])).toEqual([50, 80]);
    expect(() => thresholdsInput("80")).toThrow(/alert_at must be a list of/);
  });
});
