// People in Redis: the user record under the person's own tag, the e-mail and provider-subject lookups, and
// the grants — a person's roles in an account live in that account's members hash (the truth about access,
// read at every request), their operator role in their own record. Creating a user and every change of a
// record or a grant go through a script that records it in the matching audit log. Grants are kept as the
// scripts write them (source -> role, as text, read back by user-record.ts); what the roles mean is
// src/identity's business.

import { createHash } from "node:crypto";
import { GatewayError } from "../../core/errors.js";
import { isScriptError } from "../../core/redis-errors.js";
import { AUDIT_CAP } from "../audit/audit-store.js";
import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";
import {
  parseGrants,
  parseUser,
  type StoredGrants,
  type UserChanges,
  type UserRecord,
} from "./user-record.js";

/**
 * Whether an undo step's failure leaves nothing to undo: Redis refused it for good (the key was one this
 * user may not write, or holds another type, so the creation never wrote it).
 */
function undoneAnyway(error: unknown): boolean {
  return isScriptError(error);
}

export function subjectHash(subject: string): string {
  return createHash("sha256").update(subject).digest("hex");
}

export class UserStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /**
   * Creates a user — with their local password's hash and operator grants, if any — and audits it; refuses
   * an e-mail another user has. The e-mail is claimed first (SET NX), so that two creations racing for one
   * e-mail cannot both succeed; the record and its audit entry are then one script, which refuses a key of
   * the wrong type before it writes anything; the listing comes last. These live in different slots, so a
   * step Redis refuses (an ACL, a key in the way) undoes the ones before it: a refused creation leaves
   * nothing behind, and a retry is not told the e-mail is taken.
   */
  async create(
    user: {
      id: string;
      name: string;
      email: string;
      createdAt: number;
      operatorGrants: StoredGrants;
      passwordHash?: string | null;
    },
    audit: string,
  ): Promise<void> {
    const emailKey = this.keys.userEmail(user.email);
    const claimed = await this.redis.set(emailKey, user.id, "NX");
    if (claimed === null) throw emailTaken(user.email);
    const grants = Object.keys(user.operatorGrants).length > 0 ? JSON.stringify(user.operatorGrants) : "";
    let code: string | undefined;
    try {
      [code] = await runScript<[string]>(
        this.redis,
        "createUser",
        [this.keys.user(user.id), this.keys.userAudit(user.id)],
        [user.id, user.name, user.email, user.createdAt, grants, audit, AUDIT_CAP, user.passwordHash ?? ""],
      );
      if (code === "ok") await this.redis.zadd(this.keys.users(), "NX", user.createdAt, user.id);
    } catch (error) {
      await this.discardNew(user.id, user.email);
      throw error;
    }
    if (code === "user_exists") {
      // Another user's record under this id (a collision of 160 random bits): theirs stays untouched.
      await this.releaseEmail(user.email, user.id);
      throw new GatewayError("user_exists", `user ${user.id} already exists`);
    }
  }

  /**
   * Undoes a creation that could not be completed (a step Redis refused, a first membership or an
   * invitation that failed after the user was written): the record, its audit log, its listing and its
   * e-mail's claim. Only for a user nothing else has referred to yet. Every step is tried even when one
   * fails (the step Redis refused may be one of these: its key was not written, so there is nothing to
   * undo there); the first failure is thrown once all were tried.
   */
  async discardNew(userId: string, email: string): Promise<void> {
    const undone = await Promise.allSettled([
      this.redis.zrem(this.keys.users(), userId),
      this.redis.del(this.keys.user(userId)),
      this.redis.del(this.keys.userAudit(userId)),
      this.redis.del(this.keys.userAccounts(userId)),
      this.releaseEmail(email, userId),
    ]);
    const failed = undone.find((step): step is PromiseRejectedResult => step.status === "rejected");
    if (failed && !undoneAnyway(failed.reason)) throw failed.reason;
  }

  /** Gives back an e-mail's claim, if it is still this user's. */
  private async releaseEmail(email: string, userId: string): Promise<void> {
    const key = this.keys.userEmail(email);
    if ((await this.redis.get(key)) === userId) await this.redis.del(key);
  }

  /** Whether an account exists: a user's first membership is checked before the user is written. */
  async accountExists(accountId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.account(accountId))) === 1;
  }

  async get(userId: string): Promise<UserRecord | null> {
    return parseUser(await this.redis.hgetall(this.keys.user(userId)));
  }

  async require(userId: string): Promise<UserRecord> {
    const user = await this.get(userId);
    if (!user) throw userNotFound(userId);
    return user;
  }

  /** The user with this (case-folded) e-mail, or null. */
  async byEmail(email: string): Promise<UserRecord | null> {
    const id = await this.redis.get(this.keys.userEmail(email));
    if (id === null) return null;
    const user = await this.get(id);
    return user?.email === email ? user : null;
  }

  /** The user a provider's subject is linked to, or null. */
  async bySubject(providerId: string, subject: string): Promise<UserRecord | null> {
    const id = await this.redis.get(this.keys.oidcSubject(providerId, subjectHash(subject)));
    return id === null ? null : this.get(id);
  }

  /** Links a provider's subject to a user, for the sign-ins to come. */
  async linkSubject(providerId: string, subject: string, userId: string): Promise<void> {
    await this.redis.set(this.keys.oidcSubject(providerId, subjectHash(subject)), userId);
  }

  /** Every user's id, oldest first. */
  async ids(): Promise<string[]> {
    return this.redis.zrange(this.keys.users(), "0", "-1");
  }

  async list(): Promise<UserRecord[]> {
    const ids = await this.redis.zrange(this.keys.users(), "0", "-1");
    const users = await Promise.all(ids.map((id) => this.get(id)));
    return users.filter((user): user is UserRecord => user !== null);
  }

  /** Changes fields of the record; `audit` ('' for none) is recorded in the person's log in the same step. */
  async update(userId: string, changes: UserChanges, audit: string): Promise<void> {
    const fields: string[] = [];
    if (changes.name !== undefined) fields.push("name", changes.name);
    if (changes.status !== undefined) fields.push("status", changes.status);
    if (changes.passwordHash !== undefined) fields.push("password", changes.passwordHash ?? "");
    if (changes.providers !== undefined) fields.push("providers", changes.providers.join(","));
    if (changes.lastSignInAt !== undefined) fields.push("last_sign_in_at", String(changes.lastSignInAt));
    const [code] = await runScript(
      this.redis,
      "updateUser",
      [this.keys.user(userId), this.keys.userAudit(userId)],
      [audit, AUDIT_CAP, ...fields],
    );
    if (code === "user_not_found") throw userNotFound(userId);
  }

  /**
   * Changes a person's e-mail, recorded by `audit` in their log: the new e-mail is claimed first (SET NX), so
   * that one another user has is refused and nothing changes; the old lookup goes once the record has moved.
   */
  async changeEmail(userId: string, from: string, to: string, audit: string): Promise<void> {
    const claimed = await this.redis.set(this.keys.userEmail(to), userId, "NX");
    if (claimed === null) throw emailTaken(to);
    try {
      const [code] = await runScript(
        this.redis,
        "updateUser",
        [this.keys.user(userId), this.keys.userAudit(userId)],
        [audit, AUDIT_CAP, "email", to],
      );
      if (code === "user_not_found") throw userNotFound(userId);
    } catch (error) {
      await this.redis.del(this.keys.userEmail(to));
      throw error;
    }
    if ((await this.redis.get(this.keys.userEmail(from))) === userId)
      await this.redis.del(this.keys.userEmail(from));
  }

  /**
   * Sets (role) or removes (null) one source's operator grant; returns the grants after the change and
   * whether anything changed (only a change is audited).
   */
  async setOperatorGrant(
    userId: string,
    source: string,
    role: string | null,
    audit: string,
  ): Promise<{ grants: StoredGrants; changed: boolean }> {
    const [code, grants] = await runScript<[string, string?]>(
      this.redis,
      "setGrant",
      [this.keys.user(userId), this.keys.userAudit(userId), this.keys.user(userId)],
      ["operator", source, role ?? "", audit, AUDIT_CAP],
    );
    if (code === "not_found") throw userNotFound(userId);
    return { grants: parseGrants(grants), changed: code === "ok" };
  }

  /**
   * Sets (role) or removes (null; source "*" with null removes every grant) one source's grant in an account,
   * recorded in the account's audit log; keeps the person's index of accounts in step. Returns the grants
   * after the change and whether anything changed.
   */
  async setAccountGrant(
    accountId: string,
    userId: string,
    source: string,
    role: string | null,
    audit: string,
  ): Promise<{ grants: StoredGrants; changed: boolean }> {
    // The index is added to before a grant is written and taken from once none is left: an index entry the
    // members hash contradicts (a crash, or a grant Redis refused) is ignored by readers, while a grant
    // written with its index refused would be a member no listing of the person shows. An entry this call
    // added is taken back when the grant is refused, so that a refusal leaves nothing behind.
    const indexKey = this.keys.userAccounts(userId);
    const indexed = role === null ? 0 : await this.redis.sadd(indexKey, accountId);
    let code: string;
    let json: string | undefined;
    try {
      [code, json] = await runScript<[string, string?]>(
        this.redis,
        "setGrant",
        [this.keys.members(accountId), this.keys.audit(accountId), this.keys.account(accountId)],
        [userId, source, role ?? "", audit, AUDIT_CAP],
      );
    } catch (error) {
      if (indexed === 1) await this.redis.srem(indexKey, accountId);
      throw error;
    }
    const grants = parseGrants(json);
    if (code === "not_found") {
      if (indexed === 1) await this.redis.srem(indexKey, accountId);
      throw new GatewayError("account_not_found", `no account with id ${accountId}`);
    }
    if (Object.keys(grants).length === 0) await this.redis.srem(indexKey, accountId);
    return { grants, changed: code === "ok" };
  }

  /** A person's grants in one account (empty when they have none): what access is decided on. */
  async accountGrants(accountId: string, userId: string): Promise<StoredGrants> {
    return parseGrants(await this.redis.hget(this.keys.members(accountId), userId));
  }

  /** Every member of an account with their grants. */
  async members(accountId: string): Promise<Map<string, StoredGrants>> {
    const hash = await this.redis.hgetall(this.keys.members(accountId));
    const members = new Map<string, StoredGrants>();
    for (const [userId, json] of Object.entries(hash)) {
      const grants = parseGrants(json);
      if (Object.keys(grants).length > 0) members.set(userId, grants);
    }
    return members;
  }

  /** The accounts a person has grants in, each checked against the account's members hash. */
  async memberships(userId: string): Promise<Map<string, StoredGrants>> {
    const accountIds = (await this.redis.smembers(this.keys.userAccounts(userId))).sort();
    const grants = await Promise.all(accountIds.map((id) => this.accountGrants(id, userId)));
    const found = new Map<string, StoredGrants>();
    accountIds.forEach((id, i) => {
      const granted = grants[i] as StoredGrants;
      if (Object.keys(granted).length > 0) found.set(id, granted);
    });
    return found;
  }
}

export function userNotFound(userId: string): GatewayError {
  return new GatewayError("user_not_found", `no user with id ${userId}`);
}

function emailTaken(email: string): GatewayError {
  return new GatewayError("user_exists", `a user with the e-mail ${email} already exists`);
}
