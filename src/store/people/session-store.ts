// Sessions of signed-in people in Redis. A session is found by the SHA-256 of its id, which alone is kept (a
// Redis dump reveals no live session id); each person's sessions are indexed under their own tag, so that
// they can be listed and all revoked. Expiry is decided by the identity layer on its clock; the key's TTL
// only clears away what nobody will ask for again.

import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";

export interface SessionRecord {
  /** SHA-256 of the session id: the session's handle in lists and in Redis, never the credential itself. */
  hash: string;
  userId: string;
  via: "oidc" | "password";
  /** The provider signed in with (via oidc). */
  provider: string | null;
  createdAt: number;
  lastSeenAt: number;
  userAgent: string;
  address: string;
}

function parseSession(hash: string, fields: Record<string, string>): SessionRecord | null {
  if (fields.user === undefined) return null;
  return {
    hash,
    userId: fields.user,
    via: fields.via === "oidc" ? "oidc" : "password",
    provider: fields.provider || null,
    createdAt: Number(fields.created_at ?? 0),
    lastSeenAt: Number(fields.last_seen_at ?? 0),
    userAgent: fields.user_agent ?? "",
    address: fields.address ?? "",
  };
}

export class SessionStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  async create(session: SessionRecord, ttlMs: number): Promise<void> {
    const key = this.keys.session(session.hash);
    await this.redis.hset(key, {
      user: session.userId,
      via: session.via,
      provider: session.provider ?? "",
      created_at: session.createdAt,
      last_seen_at: session.lastSeenAt,
      user_agent: session.userAgent,
      address: session.address,
    });
    await this.redis.pexpire(key, ttlMs);
    await this.redis.zadd(this.keys.userSessions(session.userId), session.createdAt, session.hash);
  }

  async get(hash: string): Promise<SessionRecord | null> {
    return parseSession(hash, await this.redis.hgetall(this.keys.session(hash)));
  }

  /** Records a request of the session (its idle timeout slides). */
  async touch(hash: string, now: number): Promise<void> {
    await this.redis.hset(this.keys.session(hash), "last_seen_at", now);
  }

  async delete(userId: string, hash: string): Promise<boolean> {
    const deleted = await this.redis.del(this.keys.session(hash));
    await this.redis.zrem(this.keys.userSessions(userId), hash);
    return deleted > 0;
  }

  /** A person's sessions, oldest first; index entries of sessions gone from Redis are dropped. */
  async list(userId: string): Promise<SessionRecord[]> {
    const hashes = await this.redis.zrange(this.keys.userSessions(userId), "0", "-1");
    const sessions = await Promise.all(hashes.map((hash) => this.get(hash)));
    const gone = hashes.filter((_, i) => sessions[i] === null);
    if (gone.length > 0) await this.redis.zrem(this.keys.userSessions(userId), ...gone);
    return sessions.filter((session): session is SessionRecord => session !== null);
  }

  /** Deletes every session of a person; returns how many there were. */
  async deleteAll(userId: string): Promise<number> {
    const hashes = await this.redis.zrange(this.keys.userSessions(userId), "0", "-1");
    let deleted = 0;
    for (const hash of hashes) deleted += await this.redis.del(this.keys.session(hash));
    await this.redis.del(this.keys.userSessions(userId));
    return deleted;
  }
}
