import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  generateApiKey,
  generateKeyId,
  hashApiKey,
  isWellFormedApiKey,
  keyHint,
  randomToken,
} from "../../src/auth/api-key.js";

describe("API keys", () => {
  it("are sk-tunnel- followed by 64 lowercase hex characters, different every time", () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const key of keys) {
      expect(key).toMatch(/^sk-tunnel-[0-9a-f]{64}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it("are recognised only in exactly that form", () => {
    const good = `sk-tunnel-${"0123456789abcdef".repeat(4)}`;
    expect(isWellFormedApiKey(good)).toBe(true);
    for (const bad of [
      good.toUpperCase(),
      `${good}0`,
      good.slice(0, -1),
      `sk-tunnel_${good.slice(10)}`,
      `${good.slice(0, -1)}g`,
      "",
    ]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });

  it("are stored as their SHA-256 hex digest", () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash("sha256").update(key).digest("hex"));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("have a hint of their last four characters", () => {
    expect(keyHint(`sk-tunnel-${"0".repeat(60)}abcd`)).toBe("abcd");
  });
});

describe("key ids and tokens", () => {
  it("are URL-safe and of fixed length", () => {
    expect(generateKeyId()).toMatch(/^key_[0-9a-z]{20}$/);
    expect(randomToken(33)).toMatch(/^[0-9a-z]{33}$/);
  });

  it("use every character of the alphabet equally, without modulo bias", () => {
    // Taking a random byte % 36 without rejecting bytes 252-255 would make "0"-"3" come up 8/256 of the
    // time and the others 7/256, where each should come up 1/36. Pearson's chi-square of the counts against
    // the uniform distribution has 35 degrees of freedom; a fair generator exceeds 96.95 with probability
    // 1e-7 (scipy.stats.chi2.isf(1e-7, 35)), the biased one over 200 000 characters averages about 425
    // (35 + noncentrality 200 000 × 0.00195) and stays below 96.95 with probability under 1e-30.
    const draws = 200_000;
    const counts = new Map<string, number>();
    for (const c of randomToken(draws)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort().join("")).toBe("0123456789abcdefghijklmnopqrstuvwxyz");
    const expected = draws / 36;
    let chiSquare = 0;
    for (const n of counts.values()) chiSquare += (n - expected) ** 2 / expected;
    expect(chiSquare).toBeLessThan(96.95);
  });
});
