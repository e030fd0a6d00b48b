// Pending invitations in Redis: listed per account (under the account's tag, with the audit log), each
// with its one-time link found by the SHA-256 of the link's token (store/people/one-time-store.ts). The link is the
// credential and is taken once; the list is what owners see and revoke.

import { AUDIT_CAP } from "../audit/audit-store.js";
import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";

export interface InvitationRecord {
  id: string;
  accountId: string;
  /** Case-folded. */
  email: string;
  role: string;
  /** SHA-256 of the link's token. */
  hash: string;
  createdAt: number;
  expiresAt: number;
  /** Who invited: the audit log's actor name. */
  invitedBy: string;
}

export class InvitationStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** Adds (or, with null, removes) an invitation in the account's list; returns the one it replaced. */
  async set(
    accountId: string,
    invitationId: string,
    invitation: InvitationRecord | null,
    audit: string,
  ): Promise<InvitationRecord | null> {
    const [, previous] = await runScript<[string, string]>(
      this.redis,
      "setInvitation",
      [this.keys.invitations(accountId), this.keys.audit(accountId)],
      [invitationId, invitation ? JSON.stringify(invitation) : "", audit, AUDIT_CAP],
    );
    return previous ? (JSON.parse(previous) as InvitationRecord) : null;
  }

  async get(accountId: string, invitationId: string): Promise<InvitationRecord | null> {
    const json = await this.redis.hget(this.keys.invitations(accountId), invitationId);
    return json ? (JSON.parse(json) as InvitationRecord) : null;
  }

  async list(accountId: string): Promise<InvitationRecord[]> {
    const all = await this.redis.hvals(this.keys.invitations(accountId));
    return all.map((json) => JSON.parse(json) as InvitationRecord).sort((a, b) => a.createdAt - b.createdAt);
  }
}
