// People's API tokens in Redis: each token under its owner's tag (a hash, listed in the owner's zset),
// found from a presented value by the SHA-256 lookup outside the tag, like API keys; the value itself is
// never stored. Creation and deletion go through scripts that record them in the owner's audit log.

import { GatewayError } from "../../core/errors.js";
import { AUDIT_CAP } from "../audit/audit-store.js";
import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";

export interface ApiTokenRecord {
  id: string;
  userId: string;
  name: string;
  /** operator, operator-viewer, or owner/member/viewer of `accountId`. */
  role: string;
  accountId: string | null;
  /** SHA-256 of the value. */
  hash: string;
  /** The value's last characters. */
  hint: string;
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number | null;
}

function parseToken(fields: Record<string, string>): ApiTokenRecord | null {
  if (fields.id === undefined || fields.user === undefined || fields.hash === undefined) return null;
  return {
    id: fields.id,
    userId: fields.user,
    name: fields.name ?? "",
    role: fields.role ?? "",
    accountId: fields.account || null,
    hash: fields.hash,
    hint: fields.hint ?? "",
    createdAt: Number(fields.created_at ?? 0),
    expiresAt: Number(fields.expires_at ?? 0),
    lastUsedAt: fields.last_used_at ? Number(fields.last_used_at) : null,
  };
}

export class ApiTokenStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** Records the token and its lookup; `accountAudit`, for a token of one account, goes to that account's log. */
  async create(token: ApiTokenRecord, audit: string, accountAudit: string | null): Promise<void> {
    const fields = [
      ["id", token.id],
      ["name", token.name],
      ["user", token.userId],
      ["role", token.role],
      ["account", token.accountId ?? ""],
      ["hash", token.hash],
      ["hint", token.hint],
      ["created_at", String(token.createdAt)],
      ["expires_at", String(token.expiresAt)],
    ].flat();
    // Three slots: the value's lookup, the token with the person's audit entry, the account's audit entry.
    // The lookup goes first (one naming a token that does not exist lets nobody in), and a step Redis
    // refuses undoes the ones before it, so that a refused token is neither usable, listed nor audited.
    const lookup = this.keys.apiTokenHash(token.hash);
    await this.redis.set(lookup, `${token.userId}:${token.id}`);
    let code: unknown;
    try {
      [code] = await runScript<[string]>(
        this.redis,
        "createApiToken",
        [
          this.keys.apiToken(token.userId, token.id),
          this.keys.userTokens(token.userId),
          this.keys.userAudit(token.userId),
        ],
        [token.createdAt, audit, AUDIT_CAP, ...fields],
      );
    } catch (error) {
      await this.redis.del(lookup);
      throw error;
    }
    if (code === "token_exists") {
      await this.redis.del(lookup);
      throw new Error(`API token id ${token.id} is taken`);
    }
    if (accountAudit !== null && token.accountId !== null) {
      try {
        await runScript(
          this.redis,
          "appendAudit",
          [this.keys.audit(token.accountId)],
          [accountAudit, AUDIT_CAP],
        );
      } catch (error) {
        await Promise.allSettled([
          this.redis.del(lookup, this.keys.apiToken(token.userId, token.id)),
          this.redis.zrem(this.keys.userTokens(token.userId), token.id),
          this.redis.lrem(this.keys.userAudit(token.userId), 1, audit),
        ]);
        throw error;
      }
    }
  }

  async get(userId: string, tokenId: string): Promise<ApiTokenRecord | null> {
    return parseToken(await this.redis.hgetall(this.keys.apiToken(userId, tokenId)));
  }

  /** The token a value's hash names, or null; the record must still carry that hash. */
  async byHash(hash: string): Promise<ApiTokenRecord | null> {
    const ref = await this.redis.get(this.keys.apiTokenHash(hash));
    if (ref === null) return null;
    const [userId, tokenId] = ref.split(":") as [string, string];
    const token = await this.get(userId, tokenId);
    return token?.hash === hash ? token : null;
  }

  async touch(token: ApiTokenRecord, now: number): Promise<void> {
    await this.redis.hset(this.keys.apiToken(token.userId, token.id), "last_used_at", now);
  }

  async list(userId: string): Promise<ApiTokenRecord[]> {
    const ids = await this.redis.zrange(this.keys.userTokens(userId), "0", "-1");
    const tokens = await Promise.all(ids.map((id) => this.get(userId, id)));
    return tokens.filter((token): token is ApiTokenRecord => token !== null);
  }

  /** Deletes a token: its lookup first, so that it stops working before anything else happens. */
  async delete(token: ApiTokenRecord, audit: string, accountAudit: string | null): Promise<void> {
    await this.redis.del(this.keys.apiTokenHash(token.hash));
    const [code] = await runScript(
      this.redis,
      "deleteApiToken",
      [
        this.keys.apiToken(token.userId, token.id),
        this.keys.userTokens(token.userId),
        this.keys.userAudit(token.userId),
      ],
      [token.id, audit, AUDIT_CAP],
    );
    if (code === "token_not_found") throw new GatewayError("token_not_found", `no API token ${token.id}`);
    if (accountAudit !== null && token.accountId !== null) {
      await runScript(
        this.redis,
        "appendAudit",
        [this.keys.audit(token.accountId)],
        [accountAudit, AUDIT_CAP],
      );
    }
  }
}
