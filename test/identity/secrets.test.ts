// The identity layer's secrets: new ones are 256 random bits, stored ones are SHA-256 hashes, and a presented
// one is compared in constant time.

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newSecret, sameSecret, sha256 } from "../../src/identity/secrets.js";

describe("secrets", () => {
  it("are 43 URL-safe characters of 256 random bits, never the same twice", () => {
    const secrets = Array.from({ length: 50 }, newSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret, "base64url")).toHaveLength(32);
    }
    expect(new Set(secrets).size).toBe(50);
  });

  it("are hashed to the hex SHA-256 of their UTF-8 text", () => {
    expect(sha256("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256("пароль")).toBe(createHash("sha256").update(Buffer.from("пароль", "utf8")).digest("hex"));
  });

  it("are equal only when every byte is, lengths included", () => {
    expect(sameSecret("token-value", "token-value")).toBe(true);
    expect(sameSecret("token-value", "token-valuf")).toBe(false);
    expect(sameSecret("token-value", "token-value-longer")).toBe(false);
    expect(sameSecret("", "")).toBe(true);
  });
});
