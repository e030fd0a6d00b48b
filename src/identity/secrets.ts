// Secret values the identity layer hands out and looks up: session ids, CSRF tokens, one-time link tokens,
// API token values. Each is 32 bytes from the CSPRNG; only its SHA-256 is ever stored.

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** 256 random bits, URL-safe (base64url, 43 characters). */
export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}

export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Equality in constant time (for values of one length; different lengths are simply unequal). */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
