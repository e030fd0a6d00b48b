import { describe, expect, it } from "vitest";
import {
  formatRubles,
  MAX_MICROS,
  microsFromJson,
  parsePositiveRubles,
  parseRubles,
  readRubles,
  rublesForJson,
} from "../../src/core/money.js";

describe("parseRubles", () => {
  it.each([
    ["0", 0],
    ["1000", 1_000_000_000],
    ["12.5", 12_500_000],
    ["0.000001", 1],
    ["4987.65", 4_987_650_000],
    [" 7 ", 7_000_000],
    ["999999999.999999", MAX_MICROS],
  ])("reads %j as %i micro-rubles", (text, micros) => {
    expect(parseRubles(text, "amount")).toBe(micros);
  });

  it("reads numbers through their shortest decimal form, so 0.1 is exactly 100000", () => {
    expect(parseRubles(0.1, "amount")).toBe(100_000);
    expect(parseRubles(0.3, "amount")).toBe(300_000);
    expect(parseRubles(4987.65, "amount")).toBe(4_987_650_000);
  });

  it.each(["", "-1", "+1", "1e3", "1.0000001", "1,5", "abc", "1000000000", "0x10", ".5", "5.", "NaN"])(
    "refuses %j naming the field",
    (text) => {
      expect(() => parseRubles(text, "budget")).toThrow(/^budget must be a non-negative amount in rubles/);
    },
  );

  it("refuses numbers that have no plain decimal form or are negative", () => {
    for (const value of [1e-7, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e21]) {
      expect(() => parseRubles(value, "amount")).toThrow(/amount must be/);
    }
  });

  it("refuses zero where a positive amount is needed", () => {
    expect(() => parsePositiveRubles("0", "amount")).toThrow(/amount must be a positive amount/);
    expect(() => parsePositiveRubles("-3", "amount")).toThrow(/amount must be a positive amount/);
    expect(parsePositiveRubles("0.000001", "amount")).toBe(1);
  });
});

describe("readRubles", () => {
  it("reads what parseRubles reads, and gives undefined instead of an error", () => {
    expect(readRubles(" 12.5 ")).toBe(12_500_000);
    expect(readRubles("0")).toBe(0);
    for (const text of ["", "-1", "1e3", "1.0000001", "1000000000"])
      expect(readRubles(text), text).toBeUndefined();
  });
});

describe("formatting", () => {
  it.each([
    [0, "0"],
    [1, "0.000001"],
    [12_500_000, "12.5"],
    [-1, "-0.000001"],
    [-12_340_000, "-12.34"],
    [MAX_MICROS, "999999999.999999"],
  ])("writes %i micro-rubles as %s", (micros, text) => {
    expect(formatRubles(micros)).toBe(text);
  });

  it("gives JSON numbers that read back as exactly the same decimal", () => {
    for (const micros of [1, 12_500_000, 4_987_650_000, 123_456_789_012_345, MAX_MICROS, -MAX_MICROS]) {
      const json = JSON.stringify(rublesForJson(micros));
      expect(json).toBe(formatRubles(micros));
      expect(parseRubles(Math.abs(JSON.parse(json)), "x")).toBe(Math.abs(micros));
    }
  });

  it("refuses a non-integer amount as a programming error", () => {
    expect(() => formatRubles(1.5)).toThrow(TypeError);
  });

  it("reads a JSON amount back into exactly the micro-rubles it was written from", () => {
    for (const micros of [0, 1, 3, 12_500_000, 4_987_650_001, MAX_MICROS, -1, -MAX_MICROS]) {
      expect(microsFromJson(rublesForJson(micros))).toBe(micros);
    }
    // 0.1 + 0.2 is no amount a JSON figure holds.
    expect(() => microsFromJson(0.1 + 0.2)).toThrow(TypeError);
    expect(() => microsFromJson(Number.NaN)).toThrow(TypeError);
  });
});
