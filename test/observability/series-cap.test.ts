// Bounded label values: up to `max` distinct values keep their own series, later ones fold into "other",
// and a value once admitted keeps its series.

import { describe, expect, it } from "vitest";
import { OTHER, SeriesCap } from "../../src/observability/series-cap.js";

describe("SeriesCap", () => {
  it("admits the first `max` distinct values and folds every later one into other", () => {
    const cap = new SeriesCap(2);
    expect(cap.label("a")).toBe("a");
    expect(cap.label("b")).toBe("b");
    expect(cap.label("c")).toBe(OTHER);
    expect(cap.label("d")).toBe("other");
  });

  it("keeps an admitted value's series, however many values came since", () => {
    const cap = new SeriesCap(2);
    cap.label("a");
    cap.label("a");
    cap.label("b");
    for (const value of ["c", "d", "e"]) cap.label(value);
    expect(cap.label("a")).toBe("a");
    expect(cap.label("b")).toBe("b");
    expect(cap.label("c")).toBe(OTHER);
  });

  it("folds everything with a cap of zero", () => {
    expect(new SeriesCap(0).label("a")).toBe(OTHER);
  });
});
