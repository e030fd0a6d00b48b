// The audit logs: who changed what, when. Each account has its own (its keys, balance, alerts, members,
// invitations and API tokens), each person too (their record, operator role, API tokens). Entries are
// appended by the Lua scripts that make the changes (so none can be missing); this module defines their
// shape and reads them back. Entries written before people could sign in have no `by`: they stay readable,
// their `actor` says everything there was to say.

import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";
import type { AuditEntry, AuditPerson, ScimAuditEntry, UserAuditEntry } from "./audit-schema.js";

/** Most audit entries kept per account and per person. */
export const AUDIT_CAP = 10_000;

/** How a person made a change: signed in with a provider or a password, or with one of their API tokens. */
export type SignInMethod = { via: "oidc"; provider: string } | { via: "password" };

/**
 * Who made a change: the operator's admin token and an account's own token (the legacy credentials), the CLI
 * on a server, a signed-in person, a person's API token, or a SCIM client by its SCIM token; or someone not
 * signed in (`anonymous`), whose failed sign-ins and the lockouts they caused are recorded in the person's log
 * whose e-mail they tried.
 */
export type Actor =
  | { kind: "admin" }
  | { kind: "anonymous" }
  | { kind: "account"; accountId: string }
  | { kind: "cli" }
  | ({ kind: "user"; userId: string; name: string } & SignInMethod)
  | { kind: "token"; userId: string; name: string; tokenId: string; tokenName: string }
  | { kind: "scim"; tokenId: string; tokenName: string };

export function actorName(actor: Actor): string {
  switch (actor.kind) {
    case "account":
      return `account:${actor.accountId}`;
    case "scim":
      return `scim:${actor.tokenId}`;
    case "user":
      return `user:${actor.userId}`;
    case "token":
      return `token:${actor.tokenId}`;
    default:
      return actor.kind;
  }
}

/** The person behind a change, or undefined for the legacy credentials and the CLI. */
export function auditPerson(actor: Actor): AuditPerson | undefined {
  if (actor.kind === "user") {
    return {
      user_id: actor.userId,
      name: actor.name,
      via: actor.via,
      ...(actor.via === "oidc" && { provider: actor.provider }),
    };
  }
  if (actor.kind === "token") {
    return {
      user_id: actor.userId,
      name: actor.name,
      via: "token",
      token_id: actor.tokenId,
      token_name: actor.tokenName,
    };
  }
  return undefined;
}

function who(actor: Actor, now: number): { at: string; actor: string; by?: AuditPerson } {
  const person = auditPerson(actor);
  return { at: new Date(now).toISOString(), actor: actorName(actor), ...(person && { by: person }) };
}

export function auditEntry(
  actor: Actor,
  now: number,
  action: AuditEntry["action"],
  accountId: string,
  details: Record<string, unknown>,
  keyId?: string,
): string {
  const entry: AuditEntry = { ...who(actor, now), action, account_id: accountId, details };
  if (keyId !== undefined) entry.key_id = keyId;
  return JSON.stringify(entry);
}

export function userAuditEntry(
  actor: Actor,
  now: number,
  action: UserAuditEntry["action"],
  userId: string,
  details: Record<string, unknown>,
): string {
  const entry: UserAuditEntry = { ...who(actor, now), action, user_id: userId, details };
  return JSON.stringify(entry);
}

export function scimAuditEntry(
  actor: Actor,
  now: number,
  action: ScimAuditEntry["action"],
  details: Record<string, unknown>,
): string {
  const entry: ScimAuditEntry = { ...who(actor, now), action, details };
  return JSON.stringify(entry);
}

/** Newest first across several logs. */
function newestFirst<E extends { at: string }>(lists: E[][], limit: number): E[] {
  return lists
    .flat()
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
    .slice(0, limit);
}

export class AuditStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** The account's most recent entries, newest first. */
  async list(accountId: string, limit: number): Promise<AuditEntry[]> {
    const raw = await this.redis.lrange(this.keys.audit(accountId), "0", String(limit - 1));
    return raw.map((line) => JSON.parse(line) as AuditEntry);
  }

  /** The most recent entries across the given accounts, newest first. */
  async listAll(accountIds: readonly string[], limit: number): Promise<AuditEntry[]> {
    return newestFirst(await Promise.all(accountIds.map((id) => this.list(id, limit))), limit);
  }

  /** A person's most recent entries, newest first. */
  async listUser(userId: string, limit: number): Promise<UserAuditEntry[]> {
    const raw = await this.redis.lrange(this.keys.userAudit(userId), "0", String(limit - 1));
    return raw.map((line) => JSON.parse(line) as UserAuditEntry);
  }

  /** The SCIM log's most recent entries (its tokens and groups), newest first. */
  async listScim(limit: number): Promise<ScimAuditEntry[]> {
    const raw = await this.redis.lrange(this.keys.scimAudit(), "0", String(limit - 1));
    return raw.map((line) => JSON.parse(line) as ScimAuditEntry);
  }

  /** The most recent entries across the given people, newest first. */
  async listUsers(userIds: readonly string[], limit: number): Promise<UserAuditEntry[]> {
    return newestFirst(await Promise.all(userIds.map((id) => this.listUser(id, limit))), limit);
  }
}
