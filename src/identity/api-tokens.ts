// API tokens for automation: named, with one role — operator, operator-viewer, or owner, member or viewer of
// one account — and an expiry, made by a signed-in person for at most their own rights. The value
// (`sk-tunnel-admin-` + 64 hex) is shown once; Redis keeps its SHA-256. A token works only while its person
// is active and still holds its role (identity/principal.ts); it is listed and revoked by its person, and
// by an operator.

import { randomBytes } from "node:crypto";
import { hashApiKey, keyHint, randomToken } from "../auth/api-key.js";
import { IdentityEvents } from "../core/channels.js";
import { GatewayError, redisRefusal } from "../core/errors.js";
import { atLeast, isAccountRole, isOperatorRole, OPERATOR_ROLES } from "../core/roles.js";
import { validateAccountId, validateName } from "../core/validate.js";
import { type Actor, auditEntry, userAuditEntry } from "../store/audit/audit-store.js";
import type { ApiTokenRecord, ApiTokenStore } from "../store/people/api-token-store.js";
import { holdsInAccount, type Principal } from "./principal.js";

export const API_TOKEN_PREFIX = "sk-tunnel-admin-";
const DAY = 86_400_000;

export interface NewApiToken {
  name: unknown;
  role: unknown;
  /** For an account role: the account. */
  accountId?: unknown;
  /** Lifetime in days, at most signIn.apiTokens.maxDays (the default). */
  days?: unknown;
}

export class ApiTokens {
  constructor(
    private readonly store: ApiTokenStore,
    private readonly maxMs: number,
    private readonly now: () => number,
    private readonly events: IdentityEvents = new IdentityEvents(),
  ) {}

  /** Makes a token for the signed-in person `creator`, refusing a role they do not hold. */
  async create(creator: Principal, input: NewApiToken): Promise<{ record: ApiTokenRecord; value: string }> {
    try {
      const made = await this.make(creator, input);
      this.events.publish("token.create", "success", {
        userId: made.record.userId,
        tokenId: made.record.id,
        ...(made.record.accountId && { accountId: made.record.accountId }),
        detail: made.record.role,
      });
      return made;
    } catch (error) {
      if (error instanceof GatewayError)
        this.events.publish("token.create", "refused", {
          ...(creator.user && { userId: creator.user.id }),
          detail: error.code,
        });
      throw error;
    }
  }

  private async make(
    creator: Principal,
    input: NewApiToken,
  ): Promise<{ record: ApiTokenRecord; value: string }> {
    const user = creator.user;
    if (!user || creator.credential.kind !== "session")
      throw new GatewayError("forbidden", "Only a signed-in person may create API tokens.");
    const name = validateName(input.name);
    const role = input.role;
    let accountId: string | null = null;
    if (isOperatorRole(role)) {
      if (input.accountId !== undefined && input.accountId !== null)
        throw new GatewayError(
          "invalid_request",
          "account_id goes only with an account role (owner, member, viewer)",
        );
      if (!atLeast(OPERATOR_ROLES, creator.operatorRole, role))
        throw new GatewayError(
          "forbidden",
          `You may not give a token the role ${role}, which you do not hold.`,
        );
    } else if (isAccountRole(role)) {
      accountId = validateAccountId(input.accountId);
      if (!holdsInAccount(creator.operatorRole, await creator.accountRole(accountId), role))
        throw new GatewayError(
          "forbidden",
          `You may not give a token the role ${role} in account ${accountId}, which you do not hold.`,
        );
    } else {
      throw new GatewayError(
        "invalid_request",
        `role must be operator, operator-viewer, owner, member or viewer; got ${JSON.stringify(role)}`,
      );
    }
    const maxDays = Math.floor(this.maxMs / DAY);
    const days = input.days === undefined || input.days === null ? maxDays : input.days;
    if (typeof days !== "number" || !Number.isInteger(days) || days < 1 || days > maxDays)
      throw new GatewayError(
        "invalid_request",
        `days must be a whole number from 1 to ${maxDays}; got ${JSON.stringify(days)}`,
      );

    const value = API_TOKEN_PREFIX + randomBytes(32).toString("hex");
    const now = this.now();
    const record: ApiTokenRecord = {
      id: `tok_${randomToken(20)}`,
      userId: user.id,
      name,
      role,
      accountId,
      hash: hashApiKey(value),
      hint: keyHint(value),
      createdAt: now,
      expiresAt: now + days * DAY,
      lastUsedAt: null,
    };
    const details = { token_id: record.id, name, role, ...(accountId && { account_id: accountId }), days };
    try {
      await this.store.create(
        record,
        userAuditEntry(creator.actor, now, "token.create", user.id, details),
        accountId ? auditEntry(creator.actor, now, "token.create", accountId, details) : null,
      );
    } catch (error) {
      throw redisRefusal(error, `to create the API token ${JSON.stringify(name)}`);
    }
    return { record, value };
  }

  async list(userId: string): Promise<ApiTokenRecord[]> {
    return this.store.list(userId);
  }

  /** Revokes one of a person's tokens: it stops working at once. */
  async revoke(userId: string, tokenId: string, actor: Actor): Promise<void> {
    const token = await this.store.get(userId, tokenId);
    if (!token) throw new GatewayError("token_not_found", `no API token ${tokenId} of this person`);
    const now = this.now();
    const details = { token_id: token.id, name: token.name, role: token.role };
    await this.store.delete(
      token,
      userAuditEntry(actor, now, "token.revoke", userId, details),
      token.accountId ? auditEntry(actor, now, "token.revoke", token.accountId, details) : null,
    );
    const byOwner = (actor.kind === "user" || actor.kind === "token") && actor.userId === userId;
    this.events.publish("token.revoke", byOwner ? "by_owner" : "by_operator", { userId, tokenId: token.id });
  }
}
