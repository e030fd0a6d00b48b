import { describe, expect, it } from "vitest";
import { readThresholdList, readThresholds } from "../../src/core/thresholds.js";

describe("budget thresholds", () => {
  it("are whole percents from 1 to 100, sorted and without repeats", () => {
    expect(readThresholds([95, 80, 100, 80])).toEqual([80, 95, 100]);
    expect(readThresholds(["50", " 70 "])).toEqual([50, 70]);
    expect(readThresholds([])).toEqual([]);
    for (const bad of [[0], [101], [50.5], ["5O"], [null], [-10], ["1e2"]])
      expect(readThresholds(bad), String(bad)).toBeNull();
    expect(readThresholds(Array.from({ length: 11 }, (_, i) => i + 1))).toBeNull();
  });

  it("are read from the CLI's and the dashboard's text", () => {
    expect(readThresholdList("50,80, 100")).toEqual([50, 80, 100]);
    expect(readThresholdList("90 50")).toEqual([50, 90]);
    expect(readThresholdList("")).toEqual([]);
    expect(readThresholdList("80%")).toBeNull();
  });
});
