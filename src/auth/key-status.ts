// Whether a key may still be used at a given time. The reserve script applies the same rules in Lua for
// forwarded requests; this is the TypeScript side for the endpoints the gateway answers itself.

import { GatewayError } from "../errors.js";
import type { KeyRecord } from "../store/records.js";

/** Throws key_revoked or key_expired; a key expires at exactly its expiry time. */
export function assertUsable(key: KeyRecord, now: number): void {
  if (key.revokedAt !== null) throw new GatewayError("key_revoked");
  if (key.expiresAt !== null && now >= key.expiresAt) throw new GatewayError("key_expired");
}
