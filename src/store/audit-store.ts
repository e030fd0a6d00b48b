// The audit log: who changed what, when. Entries are appended by the Lua scripts that make the changes
// (so none can be missing); this module defines their shape and reads them back.

import type { RedisClient } from "./redis.js";
import type { RedisKeys } from "./redis-keys.js";

/** Most audit entries kept per account. */
export const AUDIT_CAP = 10_000;

/** Who made a change: the operator's admin token, an account's own token, or the CLI on a server. */
export type Actor = { kind: "admin" } | { kind: "account"; accountId: string } | { kind: "cli" };

export interface AuditEntry {
  at: string;
  actor: string;
  action:
    | "account.create"
    | "account.topup"
    | "account.token.create"
    | "account.token.revoke"
    | "key.create"
    | "key.update"
    | "key.rotate"
    | "key.disable"
    | "key.enable"
    | "key.revoke"
    | "account.alerts.update"
    | "account.webhook.set"
    | "account.webhook.remove";
  account_id: string;
  key_id?: string;
  details: Record<string, unknown>;
}

export function actorName(actor: Actor): string {
  return actor.kind === "account" ? `account:${actor.accountId}` : actor.kind;
}

export function auditEntry(
  actor: Actor,
  now: number,
  action: AuditEntry["action"],
  accountId: string,
  details: Record<string, unknown>,
  keyId?: string,
): string {
  const entry: AuditEntry = {
    at: new Date(now).toISOString(),
    actor: actorName(actor),
    action,
    account_id: accountId,
    details,
  };
  if (keyId !== undefined) entry.key_id = keyId;
  return JSON.stringify(entry);
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
    const lists = await Promise.all(accountIds.map((id) => this.list(id, limit)));
    return lists
      .flat()
      .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
      .slice(0, limit);
  }
}
