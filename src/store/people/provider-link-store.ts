// A person's link to an identity provider, for re-checking them between sign-ins (identity/provider-check.ts):
// under the person's tag, the provider's subject, its tokens as sealed by the identity layer (never in
// plain text), when the provider last confirmed the person; and, outside any tag, one sorted set of the
// re-checks to come, from which each replica claims the due ones (lua/claimProviderChecks-1.lua).

import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";

export interface ProviderLinkRecord {
  userId: string;
  providerId: string;
  subject: string;
  /** The refresh token, sealed; null when the provider gave none (or its tokens were dropped). */
  refresh: string | null;
  /** The access token, sealed; null once dropped. */
  access: string | null;
  /** When the access token expires (ms); null when the provider did not say. */
  accessExpiresAt: number | null;
  /** When the provider last confirmed the person: the sign-in, or the last re-check it answered. */
  confirmedAt: number;
}

function parseLink(
  userId: string,
  providerId: string,
  fields: Record<string, string>,
): ProviderLinkRecord | null {
  if (fields.subject === undefined) return null;
  return {
    userId,
    providerId,
    subject: fields.subject,
    refresh: fields.refresh || null,
    access: fields.access || null,
    accessExpiresAt: fields.access_expires_at ? Number(fields.access_expires_at) : null,
    confirmedAt: Number(fields.confirmed_at ?? 0),
  };
}

/** A due re-check: whose link, with which provider. */
export interface DueCheck {
  userId: string;
  providerId: string;
}

export class ProviderLinkStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** Writes the link (after a sign-in or a re-check the provider answered) and when it is next checked. */
  async save(link: ProviderLinkRecord, nextCheckAt: number | null): Promise<void> {
    const key = this.keys.providerLink(link.userId, link.providerId);
    await this.redis.hset(key, {
      subject: link.subject,
      refresh: link.refresh ?? "",
      access: link.access ?? "",
      access_expires_at: link.accessExpiresAt === null ? "" : String(link.accessExpiresAt),
      confirmed_at: String(link.confirmedAt),
    });
    if (nextCheckAt === null) await this.unschedule(link);
    else await this.redis.zadd(this.keys.providerChecks(), nextCheckAt, member(link));
  }

  async get(userId: string, providerId: string): Promise<ProviderLinkRecord | null> {
    return parseLink(
      userId,
      providerId,
      await this.redis.hgetall(this.keys.providerLink(userId, providerId)),
    );
  }

  /** Forgets the link's tokens (the provider refused them) and its re-checks; the subject stays linked. */
  async dropTokens(link: DueCheck): Promise<void> {
    await this.redis.hdel(
      this.keys.providerLink(link.userId, link.providerId),
      "refresh",
      "access",
      "access_expires_at",
    );
    await this.unschedule(link);
  }

  async schedule(link: DueCheck, at: number): Promise<void> {
    await this.redis.zadd(this.keys.providerChecks(), at, member(link));
  }

  async unschedule(link: DueCheck): Promise<void> {
    await this.redis.zrem(this.keys.providerChecks(), member(link));
  }

  /** Claims up to `limit` due re-checks for `leaseMs` (no other replica takes them meanwhile). */
  async claimDue(now: number, leaseMs: number, limit: number): Promise<DueCheck[]> {
    const members = await runScript<string[]>(
      this.redis,
      "claimProviderChecks",
      [this.keys.providerChecks()],
      [now, leaseMs, limit],
    );
    return members.flatMap((value) => {
      const [userId, providerId] = value.split(" ");
      return userId && providerId ? [{ userId, providerId }] : [];
    });
  }

  /** An operator lets the person's next sign-in with the provider (before `until`) link to them. */
  async allowLink(userId: string, providerId: string, until: number, ttlMs: number): Promise<void> {
    await this.redis.set(
      this.keys.linkAllowance(userId, providerId),
      String(until),
      "PX",
      Math.max(1, ttlMs),
    );
  }

  /** Takes the operator's leave to link, if there is one still valid at `now` (used once). */
  async takeAllowance(userId: string, providerId: string, now: number): Promise<boolean> {
    const until = await this.redis.getdel(this.keys.linkAllowance(userId, providerId));
    return until !== null && Number(until) > now;
  }

  /** When a link is next re-checked (ms), or null when it is not scheduled. */
  async nextCheck(link: DueCheck): Promise<number | null> {
    const score = await this.redis.zscore(this.keys.providerChecks(), member(link));
    return score === null ? null : Number(score);
  }
}

function member(link: DueCheck): string {
  return `${link.userId} ${link.providerId}`;
}
