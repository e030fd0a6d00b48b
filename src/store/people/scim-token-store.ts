// SCIM tokens in Redis: each token's record in one hash under the {scim} tag, found from a presented value by
// its SHA-256 (the value itself is never stored), and its last use apart, so that a request's touch never
// rewrites the record. Creating and revoking a token change the record, its lookup and the SCIM log in one
// MULTI on that one slot: all or nothing.

import { AUDIT_CAP } from "../audit/audit-store.js";
import { requireKeyTypes } from "../connection/key-types.js";
import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";

export interface ScimTokenRecord {
  id: string;
  name: string;
  /** SHA-256 of the value. */
  hash: string;
  /** The value's last characters. */
  hint: string;
  createdAt: number;
  /** Who made it, as the audit log names actors (cli, admin, user:<id>, token:<id>). */
  createdBy: string;
  lastUsedAt: number | null;
}

function parseRecord(json: string, lastUsed: string | null | undefined): ScimTokenRecord | null {
  try {
    const stored = JSON.parse(json) as Omit<ScimTokenRecord, "lastUsedAt">;
    if (typeof stored.id !== "string" || typeof stored.hash !== "string") return null;
    return { ...stored, lastUsedAt: lastUsed ? Number(lastUsed) : null };
  } catch {
    return null;
  }
}

export class ScimTokenStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  async create(token: ScimTokenRecord, audit: string): Promise<void> {
    const { tokens, tokenHash } = this.keys.scim();
    const { lastUsedAt: _, ...stored } = token;
    await requireKeyTypes(this.redis, {
      [tokens]: "hash",
      [tokenHash]: "hash",
      [this.keys.scimAudit()]: "list",
    });
    const results = await this.redis
      .multi()
      .hset(tokens, token.id, JSON.stringify(stored))
      .hset(tokenHash, token.hash, token.id)
      .lpush(this.keys.scimAudit(), audit)
      .ltrim(this.keys.scimAudit(), 0, AUDIT_CAP - 1)
      .exec();
    // EXEC runs every command even when one is refused (a key of the wrong type in the way) and reports each
    // one's error in its answer instead of failing: a token without its audit entry, or its lookup, would be
    // a change made silently. Whatever was written is taken back and the refusal thrown.
    const at = results?.findIndex(([error]) => error !== null) ?? -1;
    const refused = at >= 0 ? results?.[at]?.[0] : null;
    if (refused) {
      refused.message = `${refused.message} (${[tokens, tokenHash, this.keys.scimAudit()][Math.min(at, 2)]})`;
      await Promise.allSettled([
        this.redis.hdel(tokens, token.id),
        this.redis.hdel(tokenHash, token.hash),
        this.redis.lrem(this.keys.scimAudit(), 1, audit),
      ]);
      throw refused;
    }
  }

  async list(): Promise<ScimTokenRecord[]> {
    const { tokens, tokenUsed } = this.keys.scim();
    const [records, used] = await Promise.all([this.redis.hgetall(tokens), this.redis.hgetall(tokenUsed)]);
    return Object.entries(records)
      .map(([id, json]) => parseRecord(json, used[id]))
      .filter((token): token is ScimTokenRecord => token !== null)
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  async get(id: string): Promise<ScimTokenRecord | null> {
    const { tokens, tokenUsed } = this.keys.scim();
    const [json, used] = await Promise.all([this.redis.hget(tokens, id), this.redis.hget(tokenUsed, id)]);
    return json === null ? null : parseRecord(json, used);
  }

  /** The token whose value has this SHA-256, or null: looked up at every request, never cached. */
  async byHash(hash: string): Promise<ScimTokenRecord | null> {
    const id = await this.redis.hget(this.keys.scim().tokenHash, hash);
    return id === null ? null : this.get(id);
  }

  async touch(id: string, now: number): Promise<void> {
    await this.redis.hset(this.keys.scim().tokenUsed, id, String(now));
  }

  async delete(token: ScimTokenRecord, audit: string): Promise<void> {
    const { tokens, tokenHash, tokenUsed } = this.keys.scim();
    await this.redis
      .multi()
      .hdel(tokens, token.id)
      .hdel(tokenHash, token.hash)
      .hdel(tokenUsed, token.id)
      .lpush(this.keys.scimAudit(), audit)
      .ltrim(this.keys.scimAudit(), 0, AUDIT_CAP - 1)
      .exec();
  }
}
