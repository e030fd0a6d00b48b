// People: creating them (the CLI, an invitation, a provider's first sign-in), finding them, disabling and
// enabling them, their name, e-mail and local password, and their sign-ins — each change named by its actor
// and recorded in the audit log by the script that makes it. Their grants are role-grants.ts's.

import { randomToken } from "../auth/api-key.js";
import { IdentityEvents } from "../core/channels.js";
import { GatewayError, redisRefusal } from "../core/errors.js";
import { DIRECT, type OperatorRole } from "../core/roles.js";
import { validateAccountId, validateName } from "../core/validate.js";
import type { UserAuditEntry } from "../store/audit/audit-schema.js";
import { type Actor, type SignInMethod, userAuditEntry } from "../store/audit/audit-store.js";
import type { SessionStore } from "../store/people/session-store.js";
import type { StoredGrants, UserRecord } from "../store/people/user-record.js";
import type { UserStore } from "../store/people/user-store.js";
import { checkNewPassword, hashPassword } from "./passwords.js";
import type { RoleGrants } from "./role-grants.js";
import { validateAccountRole, validateEmail, validateUserId } from "./user-input.js";

export { validateAccountRole, validateEmail, validateOperatorRole, validateUserId } from "./user-input.js";

export interface NewUser {
  email: unknown;
  name?: unknown;
  operatorRole?: OperatorRole | null;
  /** A first membership. */
  account?: { accountId: string; role: unknown };
  /** A local password, checked against the rules before anything is written and set with the user. */
  password?: unknown;
}

export class Users {
  constructor(
    private readonly store: UserStore,
    private readonly sessions: SessionStore,
    /** A new person's first membership is granted here. */
    private readonly grants: Pick<RoleGrants, "grant">,
    private readonly minPasswordLength: number,
    private readonly now: () => number,
    private readonly events: IdentityEvents = new IdentityEvents(),
  ) {}

  /**
   * Creates a user. `by` is who does it, or `{ self }` for a person signing up (accepting an invitation, or
   * signing in with a provider for the first time), who is then the actor of their own creation.
   *
   * All or nothing: every input — the e-mail, the name, the password against the rules, the first
   * membership's account and role — is checked before anything is written; the user and their password are
   * one script; and a first membership that cannot be granted after all undoes the user.
   */
  async create(input: NewUser, by: Actor | { self: SignInMethod }): Promise<UserRecord> {
    const email = validateEmail(input.email);
    const name =
      input.name === undefined || input.name === null || input.name === "" ? email : validateName(input.name);
    const operatorGrants: StoredGrants = input.operatorRole ? { [DIRECT]: input.operatorRole } : {};
    const account = input.account && {
      accountId: validateAccountId(input.account.accountId),
      role: validateAccountRole(input.account.role),
    };
    const password =
      input.password === undefined ? null : await checkNewPassword(input.password, this.minPasswordLength);
    if (account && !(await this.store.accountExists(account.accountId)))
      throw new GatewayError("account_not_found", `no account with id ${account.accountId}`);
    if (await this.store.byEmail(email))
      throw new GatewayError("user_exists", `a user with the e-mail ${email} already exists`);
    const passwordHash = password === null ? null : await hashPassword(password);
    const id = `usr_${randomToken(20)}`;
    const now = this.now();
    const actor: Actor = "self" in by ? { kind: "user", userId: id, name, ...by.self } : by;
    const audit = userAuditEntry(actor, now, "user.create", id, {
      email,
      name,
      ...(input.operatorRole && { operator: input.operatorRole }),
      ...(passwordHash !== null && { password: true }),
    });
    try {
      await this.store.create({ id, name, email, createdAt: now, operatorGrants, passwordHash }, audit);
    } catch (error) {
      throw redisRefusal(error, `to create the user ${email}`);
    }
    if (account) {
      try {
        await this.grants.grant(account.accountId, id, DIRECT, account.role, actor);
      } catch (error) {
        await this.store.discardNew(id, email);
        throw redisRefusal(
          error,
          `to grant ${email} the role ${account.role} in account ${account.accountId}`,
        );
      }
    }
    return this.store.require(id);
  }

  /** Undoes a creation whose next step failed (an invitation taken by another request meanwhile). */
  async discardNew(user: UserRecord): Promise<void> {
    await this.store.discardNew(user.id, user.email);
  }

  async list(): Promise<UserRecord[]> {
    return this.store.list();
  }

  /** A user by id (usr_…) or e-mail. */
  async find(idOrEmail: unknown): Promise<UserRecord> {
    if (typeof idOrEmail === "string" && idOrEmail.startsWith("usr_"))
      return this.store.require(validateUserId(idOrEmail));
    const email = validateEmail(idOrEmail);
    const user = await this.store.byEmail(email);
    if (!user) throw new GatewayError("user_not_found", `no user with the e-mail ${email}`);
    return user;
  }

  async byEmail(email: string): Promise<UserRecord | null> {
    return this.store.byEmail(email);
  }

  async get(userId: string): Promise<UserRecord | null> {
    return this.store.get(userId);
  }

  /** Disables a person: their sessions end at once, their API tokens stop working, sign-in is refused. */
  async disable(userId: string, actor: Actor): Promise<UserRecord> {
    const user = await this.store.require(userId);
    const audit = userAuditEntry(actor, this.now(), "user.disable", userId, { email: user.email });
    await this.store.update(userId, { status: "disabled" }, audit);
    const ended = await this.sessions.deleteAll(userId);
    if (ended > 0) this.events.publish("session.revoke", "user_disabled", { userId, count: ended });
    return this.store.require(userId);
  }

  async enable(userId: string, actor: Actor): Promise<UserRecord> {
    const user = await this.store.require(userId);
    const audit = userAuditEntry(actor, this.now(), "user.enable", userId, { email: user.email });
    await this.store.update(userId, { status: "active" }, audit);
    return this.store.require(userId);
  }

  /**
   * Changes a person's display name and e-mail (a SCIM client's update), audited as `user.update` with what
   * changed; an e-mail another user has is refused with nothing changed.
   */
  async update(
    userId: string,
    changes: { name?: string; email?: string },
    actor: Actor,
  ): Promise<UserRecord> {
    const user = await this.store.require(userId);
    const name =
      changes.name === undefined || changes.name === user.name ? undefined : validateName(changes.name);
    const email =
      changes.email === undefined || changes.email === user.email ? undefined : validateEmail(changes.email);
    if (name === undefined && email === undefined) return user;
    const details = {
      email: email ?? user.email,
      ...(name !== undefined && { name, previous_name: user.name }),
      ...(email !== undefined && { previous_email: user.email }),
    };
    const audit = userAuditEntry(actor, this.now(), "user.update", userId, details);
    if (email !== undefined) {
      await this.store.changeEmail(userId, user.email, email, name === undefined ? audit : "");
      if (name !== undefined) await this.store.update(userId, { name }, audit);
    } else await this.store.update(userId, { name: name as string }, audit);
    return this.store.require(userId);
  }

  /** Refuses a password the rules do not allow (too short, too long, too common). */
  async checkPassword(password: unknown): Promise<string> {
    return checkNewPassword(password, this.minPasswordLength);
  }

  /** Sets a person's local password (refusing a weak one). */
  async setPassword(userId: string, password: unknown, actor: Actor): Promise<void> {
    const checked = await checkNewPassword(password, this.minPasswordLength);
    await this.store.require(userId);
    const passwordHash = await hashPassword(checked);
    const audit = userAuditEntry(actor, this.now(), "user.password", userId, {});
    await this.store.update(userId, { passwordHash }, audit);
  }

  /**
   * Records a sign-in: when, the provider (if new to this person), and an entry in the person's audit log
   * saying how and from where.
   */
  async signedIn(user: UserRecord, method: SignInMethod, address: string): Promise<void> {
    const providerId = method.via === "oidc" ? method.provider : null;
    const providers =
      providerId !== null && !user.providers.includes(providerId)
        ? [...user.providers, providerId]
        : undefined;
    const now = this.now();
    const actor: Actor = { kind: "user", userId: user.id, name: user.name, ...method };
    const audit = userAuditEntry(actor, now, "user.sign_in", user.id, { address });
    await this.store.update(user.id, { lastSignInAt: now, ...(providers && { providers }) }, audit);
  }

  /** Records in the person's audit log something that happened to them but changed no record of theirs. */
  async record(
    userId: string,
    actor: Actor,
    action: UserAuditEntry["action"],
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.store.update(userId, {}, userAuditEntry(actor, this.now(), action, userId, details));
  }
}
