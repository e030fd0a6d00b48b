// API key values: `sk-tunnel-` + 64 lowercase hex characters (32 bytes from the CSPRNG). A value is shown once,
// at creation; Redis only ever holds its SHA-256 hash, so nothing — not an operator, not a Redis dump — can
// recover it.

import { createHash, randomBytes } from "node:crypto";

export const KEY_PREFIX = "sk-tunnel-";
const KEY_LENGTH = KEY_PREFIX.length + 64;
/** How many trailing characters of a key are kept as a non-secret hint for people to tell keys apart. */
export const KEY_HINT_LENGTH = 4;

export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString("hex");
}

/** True for exactly `sk-tunnel-` followed by 64 lowercase hex characters. */
export function isWellFormedApiKey(value: string): boolean {
  if (value.length !== KEY_LENGTH || !value.startsWith(KEY_PREFIX)) return false;
  for (let i = KEY_PREFIX.length; i < KEY_LENGTH; i++) {
    const c = value.charCodeAt(i);
    // 0-9 or a-f
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** The hex SHA-256 of a key value: the only form in which a key is stored. */
export function hashApiKey(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function keyHint(value: string): string {
  return value.slice(-KEY_HINT_LENGTH);
}

/** Prefix of account tokens, the dashboard credential of one account; never valid as an API key. */
export const ACCOUNT_TOKEN_PREFIX = "sk-tunnel-account-";

export function generateAccountToken(): string {
  return ACCOUNT_TOKEN_PREFIX + randomBytes(32).toString("hex");
}

/** A short, URL-safe, non-secret identifier such as `key_5m2x8q0c7w1r9t4z6b3n`. */
export function generateKeyId(): string {
  return `key_${randomToken(20)}`;
}

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** `length` characters of [0-9a-z] from the CSPRNG (about 5.2 bits each, without modulo bias). */
export function randomToken(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 252 is the largest multiple of 36 below 256: rejecting the rest keeps every character equally likely.
      if (byte < 252) out += ALPHABET[byte % 36];
      if (out.length === length) break;
    }
  }
  return out;
}
