import { describe, expect, it } from "vitest";
import { parseLifetime, readLifetime } from "../../src/services/lifetime.js";

describe("parseLifetime", () => {
  it.each([
    ["15m", 15 * 60_000],
    ["2h", 2 * 3600_000],
    ["30d", 30 * 86_400_000],
    ["1w", 7 * 86_400_000],
    ["1h30m", 90 * 60_000],
    [" 2h ", 2 * 3600_000],
  ])("reads %j", (text, ms) => {
    expect(parseLifetime(text)).toBe(ms);
  });

  it("reads never as unlimited", () => {
    expect(parseLifetime("never")).toBeNull();
  });

  it("refuses anything shorter than 15 minutes", () => {
    for (const text of ["14m", "0m", "0h"]) {
      expect(() => parseLifetime(text)).toThrow(/at least 15 minutes/);
    }
  });

  it("refuses what is not a duration", () => {
    for (const text of ["", "15", "15 minutes", "1y", "1.5h", "-15m", "m15", "forever"]) {
      expect(() => parseLifetime(text)).toThrow(/lifetime must be a duration/);
    }
  });

  it("refuses units that could be read two ways, listing the accepted ones", () => {
    // 30M: minutes or months? 1mo, 2 weeks, 900s and upper-case units are refused rather than guessed.
    for (const text of ["30M", "1mo", "2 weeks", "30", "900s", "2H", "1W", "NEVER"]) {
      expect(() => parseLifetime(text)).toThrow(
        `lifetime must be a duration such as 15m, 2h, 30d, 1w or 1h30m, in units m (minutes), h (hours), d (days), w (weeks), lower case, or "never"; got ${JSON.stringify(text)}`,
      );
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
