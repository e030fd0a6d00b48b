// Values that may be taken once: one-time links (invitations, set-password links) and sign-ins with a
// provider under way (their PKCE verifier and nonce). Each is found by the SHA-256 of the secret that names
// it, so that Redis never holds the secret; `take` is GETDEL, so that of two requests racing with one link
// exactly one gets it. The TTL clears what nobody takes; expiry itself is judged on the caller's clock.

import type { RedisClient } from "../connection/redis.js";

export class OneTimeStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyOf: (hash: string) => string,
  ) {}

  async put(hash: string, value: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.keyOf(hash), value, "PX", Math.max(1, Math.ceil(ttlMs)));
  }

  /** The value, left in place; null when there is none. */
  async peek(hash: string): Promise<string | null> {
    return this.redis.get(this.keyOf(hash));
  }

  /** The value, removed in the same step; null when there is none (never given, or taken already). */
  async take(hash: string): Promise<string | null> {
    return this.redis.getdel(this.keyOf(hash));
  }

  async delete(hash: string): Promise<void> {
    await this.redis.del(this.keyOf(hash));
  }
}
