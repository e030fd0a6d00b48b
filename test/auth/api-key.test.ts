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
import { bearerToken } from "../../src/auth/authenticator.js";

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

  it("use every character of the alphabet about equally", () => {
    const counts = new Map<string, number>();
    for (const c of randomToken(36_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(36);
    for (const n of counts.values()) expect(n).toBeGreaterThan(700); // expected 1000 each
  });
});

describe("bearerToken", () => {
  it("reads a Bearer credential, case-insensitively", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer  abc ")).toBe("abc");
  });

  it("refuses anything else with missing_api_key", () => {
    for (const header of [undefined, "", "Basic abc", "Bearer", "Bearer a b", "abc"]) {
      expect(() => bearerToken(header)).toThrow(expect.objectContaining({ code: "missing_api_key" }));
    }
  });
});
