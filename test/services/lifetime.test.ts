import { describe, expect, it } from "vitest";
import { parseLifetime, readLifetime } from "../../src/services/lifetime.js";

describe("parseLifetime", () => {
  it.each([
    ["15m", 15 * 60_000],
    ["2h", 2 * 3600_000],
    ["30d", 30 * 86_400_000],
    ["1w", 7 * 86_400_000],
    ["1h30m", 90 * 60_000],
    ["900s", 15 * 60_000],
    [" 2H ", 2 * 3600_000],
  ])("reads %j", (text, ms) => {
    expect(parseLifetime(text)).toBe(ms);
  });

  it("reads never as unlimited", () => {
    expect(parseLifetime("never")).toBeNull();
    expect(parseLifetime("NEVER")).toBeNull();
  });

  it("refuses anything shorter than 15 minutes", () => {
    for (const text of ["14m", "899s", "14m59s", "0m"]) {
      expect(() => parseLifetime(text)).toThrow(/at least 15 minutes/);
    }
  });

  it("refuses what is not a duration", () => {
    for (const text of ["", "15", "15 minutes", "1y", "1.5h", "-15m", "m15", "forever"]) {
      expect(() => parseLifetime(text)).toThrow(/lifetime must be a duration/);
    }
  });

  it("refuses absurdly long lifetimes in favour of never", () => {
    expect(() => parseLifetime("10000w")).toThrow(/at most 100 years/);
  });
});

describe("readLifetime", () => {
  it("reports the problem by name without throwing, for the dashboard to word in the page's language", () => {
    expect(readLifetime("2h")).toEqual({ ok: true, ms: 2 * 3600_000 });
    expect(readLifetime("never")).toEqual({ ok: true, ms: null });
    expect(readLifetime("15")).toEqual({ ok: false, problem: "format" });
    expect(readLifetime("14m")).toEqual({ ok: false, problem: "min" });
    expect(readLifetime("10000w")).toEqual({ ok: false, problem: "max" });
  });
});
