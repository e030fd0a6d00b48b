// Whether a key may still be used at a given time, with a given value. The reserve script applies the same
// rules in Lua for forwarded requests; this is the TypeScript side for the endpoints the gateway answers
// itself. A disabled key passes here: those endpoints answer it, so that its holder can see why it is refused.

import { GatewayError } from "../core/errors.js";
import type { KeyRecord } from "../store/records.js";

/**
 * Throws key_revoked, key_expired (a key expires at exactly its expiry time) or key_rotated (the value `hash`
 * was replaced, and its grace period, if any, is over).
 */
export function assertUsable(key: KeyRecord, now: number, hash: string): void {
  if (key.revokedAt !== null) throw new GatewayError("key_revoked");
  if (key.expiresAt !== null && now >= key.expiresAt) throw new GatewayError("key_expired");
  if (!acceptsValue(key, now, hash)) throw new GatewayError("key_rotated");
}

/**
 * Whether the value with this hash is the key's: its current one, or the one a rotation replaced while its
 * grace period runs. A key created before values were recorded (no hash) accepts every value mapped to it,
 * and its first rotation's grace period likewise ('*').
 */
export function acceptsValue(key: KeyRecord, now: number, hash: string): boolean {
  if (key.hash === null || key.hash === hash) return true;
  const inGrace = key.previousUntil !== null && now < key.previousUntil;
  return inGrace && (key.previousHash === hash || key.previousHash === "*");
}
