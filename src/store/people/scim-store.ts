// What SCIM keeps beside the people of src/store/people/user-store.ts: a user's SCIM attributes (externalId, name
// parts, e-mails) and the users a SCIM client deleted, and the groups it pushes with their members. All of it
// lives under the {scim} tag, so that a record, its lookups (displayName, externalId) and the SCIM log change
// together in one MULTI. A group's members set is the only record of who is in it: a user's groups are read
// from the groups' sets, never kept twice.

import { AUDIT_CAP } from "../audit/audit-store.js";
import { execOrThrow, requireKeyTypes } from "../connection/key-types.js";
import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";

export interface ScimEmail {
  value: string;
  type?: string | undefined;
  primary?: boolean | undefined;
}

export interface ScimUserAttributes {
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  formatted: string | null;
  emails: ScimEmail[];
  modifiedAt: number;
}

export interface ScimGroupRecord {
  id: string;
  displayName: string;
  externalId: string | null;
  createdAt: number;
  modifiedAt: number;
}

/** A group's lookup by displayName: case-folded, as SCIM compares it (caseExact false). */
export function groupNameKey(displayName: string): string {
  return displayName.toLowerCase();
}

function parseEmails(json: string | undefined): ScimEmail[] {
  try {
    const parsed: unknown = JSON.parse(json ?? "[]");
    return Array.isArray(parsed) ? (parsed as ScimEmail[]) : [];
  } catch {
    return [];
  }
}

function parseGroup(hash: Record<string, string>): ScimGroupRecord | null {
  if (hash.id === undefined || hash.display_name === undefined) return null;
  return {
    id: hash.id,
    displayName: hash.display_name,
    externalId: hash.external_id || null,
    createdAt: Number(hash.created_at ?? 0),
    modifiedAt: Number(hash.modified_at ?? hash.created_at ?? 0),
  };
}

export class ScimStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  async userAttributes(userId: string): Promise<ScimUserAttributes | null> {
    const hash = await this.redis.hgetall(this.keys.scimUser(userId));
    if (hash.modified_at === undefined) return null;
    return {
      externalId: hash.external_id || null,
      givenName: hash.given_name || null,
      familyName: hash.family_name || null,
      formatted: hash.formatted || null,
      emails: parseEmails(hash.emails),
      modifiedAt: Number(hash.modified_at),
    };
  }

  async userByExternalId(externalId: string): Promise<string | null> {
    return this.redis.hget(this.keys.scim().userExternal, externalId);
  }

  /** The users a SCIM client deleted: it sees them no more. */
  async deletedUsers(): Promise<Set<string>> {
    return new Set(await this.redis.smembers(this.keys.scim().deleted));
  }

  async isDeleted(userId: string): Promise<boolean> {
    return (await this.redis.sismember(this.keys.scim().deleted, userId)) === 1;
  }

  /** Writes a user's SCIM attributes and moves their externalId lookup; a deleted user is seen again. */
  async setUserAttributes(
    userId: string,
    attributes: ScimUserAttributes,
    previousExternalId: string | null,
  ): Promise<void> {
    const { userExternal, deleted } = this.keys.scim();
    const key = this.keys.scimUser(userId);
    await requireKeyTypes(this.redis, { [userExternal]: "hash", [deleted]: "set" });
    const multi = this.redis.multi().del(key);
    multi.hset(key, {
      external_id: attributes.externalId ?? "",
      given_name: attributes.givenName ?? "",
      family_name: attributes.familyName ?? "",
      formatted: attributes.formatted ?? "",
      emails: JSON.stringify(attributes.emails),
      modified_at: String(attributes.modifiedAt),
    });
    if (previousExternalId !== null && previousExternalId !== attributes.externalId)
      multi.hdel(userExternal, previousExternalId);
    if (attributes.externalId !== null) multi.hset(userExternal, attributes.externalId, userId);
    await execOrThrow(multi.srem(deleted, userId));
  }

  /** A user the SCIM client deleted: their SCIM attributes and externalId go, and SCIM sees them no more. */
  async markDeleted(userId: string, externalId: string | null): Promise<void> {
    const { userExternal, deleted } = this.keys.scim();
    await requireKeyTypes(this.redis, { [userExternal]: "hash", [deleted]: "set" });
    const multi = this.redis.multi().del(this.keys.scimUser(userId)).sadd(deleted, userId);
    if (externalId !== null) multi.hdel(userExternal, externalId);
    await execOrThrow(multi);
  }

  async group(groupId: string): Promise<ScimGroupRecord | null> {
    return parseGroup(await this.redis.hgetall(this.keys.scimGroup(groupId).group));
  }

  async groupByName(displayName: string): Promise<string | null> {
    return this.redis.hget(this.keys.scim().groupName, groupNameKey(displayName));
  }

  async groupByExternalId(externalId: string): Promise<string | null> {
    return this.redis.hget(this.keys.scim().groupExternal, externalId);
  }

  /** Every group's id, oldest first: the stable order SCIM pages through. */
  async groupIds(): Promise<string[]> {
    return this.redis.zrange(this.keys.scim().groups, "0", "-1");
  }

  async members(groupId: string): Promise<string[]> {
    return (await this.redis.smembers(this.keys.scimGroup(groupId).members)).sort();
  }

  /** The groups a user is in, read from every group's members. */
  async groupsOf(userId: string): Promise<string[]> {
    const ids = await this.groupIds();
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.sismember(this.keys.scimGroup(id).members, userId);
    const found = (await pipeline.exec()) ?? [];
    return ids.filter((_, i) => found[i]?.[1] === 1);
  }

  /**
   * Writes a group (new or changed) with its lookups, adds and removes members, and records `audit` in the
   * SCIM log ('' for none), all in one MULTI.
   */
  async saveGroup(
    group: ScimGroupRecord,
    before: ScimGroupRecord | null,
    change: { add: readonly string[]; remove: readonly string[] },
    audit: string,
  ): Promise<void> {
    const { groups, groupName, groupExternal } = this.keys.scim();
    const keys = this.keys.scimGroup(group.id);
    await requireKeyTypes(this.redis, {
      [keys.group]: "hash",
      [keys.members]: "set",
      [groups]: "zset",
      [groupName]: "hash",
      [groupExternal]: "hash",
      [this.keys.scimAudit()]: "list",
    });
    const multi = this.redis.multi().hset(keys.group, {
      id: group.id,
      display_name: group.displayName,
      external_id: group.externalId ?? "",
      created_at: String(group.createdAt),
      modified_at: String(group.modifiedAt),
    });
    multi.zadd(groups, "NX", group.createdAt, group.id);
    if (before && groupNameKey(before.displayName) !== groupNameKey(group.displayName))
      multi.hdel(groupName, groupNameKey(before.displayName));
    multi.hset(groupName, groupNameKey(group.displayName), group.id);
    if (before?.externalId && before.externalId !== group.externalId)
      multi.hdel(groupExternal, before.externalId);
    if (group.externalId !== null) multi.hset(groupExternal, group.externalId, group.id);
    if (change.add.length > 0) multi.sadd(keys.members, ...change.add);
    if (change.remove.length > 0) multi.srem(keys.members, ...change.remove);
    if (audit !== "")
      multi.lpush(this.keys.scimAudit(), audit).ltrim(this.keys.scimAudit(), 0, AUDIT_CAP - 1);
    await execOrThrow(multi);
  }

  async deleteGroup(group: ScimGroupRecord, audit: string): Promise<void> {
    const { groups, groupName, groupExternal } = this.keys.scim();
    const keys = this.keys.scimGroup(group.id);
    await requireKeyTypes(this.redis, {
      [groups]: "zset",
      [groupName]: "hash",
      [groupExternal]: "hash",
      [this.keys.scimAudit()]: "list",
    });
    const multi = this.redis
      .multi()
      .del(keys.group, keys.members)
      .zrem(groups, group.id)
      .hdel(groupName, groupNameKey(group.displayName));
    if (group.externalId !== null) multi.hdel(groupExternal, group.externalId);
    await execOrThrow(
      multi.lpush(this.keys.scimAudit(), audit).ltrim(this.keys.scimAudit(), 0, AUDIT_CAP - 1),
    );
  }
}
