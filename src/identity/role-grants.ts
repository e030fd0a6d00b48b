// Who holds which role: a person's grants in an account (in the account's members hash) and as an operator
// (in their own record), each kept by source ("direct", "oidc:<provider>", "scim") and each change named by
// its actor and audited by the script that makes it; a provider's mapping applied to the grants of its source;
// and the members and memberships the grants make. Users (users.ts) grants a new person's first membership here.

import { GatewayError } from "../core/errors.js";
import {
  type AccountRole,
  effectiveAccountRole,
  effectiveOperatorRole,
  type Grants,
  grantsOf,
  isAccountRole,
  isOperatorRole,
  type OperatorRole,
} from "../core/roles.js";
import { type Actor, auditEntry, userAuditEntry } from "../store/audit/audit-store.js";
import type { UserRecord } from "../store/people/user-record.js";
import type { UserStore } from "../store/people/user-store.js";

export interface Member {
  user: UserRecord;
  role: AccountRole;
  grants: Grants<AccountRole>;
}

export interface Membership {
  accountId: string;
  role: AccountRole;
  grants: Grants<AccountRole>;
}

export class RoleGrants {
  constructor(
    private readonly store: UserStore,
    private readonly now: () => number,
  ) {}

  /** Sets or removes (null) one source's grant of a role in an account. */
  async grant(
    accountId: string,
    userId: string,
    source: string,
    role: AccountRole | null,
    actor: Actor,
  ): Promise<Grants<AccountRole>> {
    const user = await this.store.require(userId);
    const action = role === null ? "member.remove" : "member.grant";
    const audit = auditEntry(actor, this.now(), action, accountId, {
      user_id: userId,
      name: user.name,
      source,
      ...(role && { role }),
    });
    const { grants } = await this.store.setAccountGrant(accountId, userId, source, role, audit);
    return grantsOf(grants, isAccountRole);
  }

  /** Removes a person from an account, every source's grant (a provider's comes back at its next sign-in). */
  async removeMember(accountId: string, userId: string, actor: Actor): Promise<void> {
    const grants = await this.store.accountGrants(accountId, userId);
    if (Object.keys(grants).length === 0)
      throw new GatewayError("member_not_found", `${userId} is not a member of account ${accountId}`);
    await this.grant(accountId, userId, "*", null, actor);
  }

  /** Sets or removes (null) one source's operator grant. */
  async grantOperator(
    userId: string,
    source: string,
    role: OperatorRole | null,
    actor: Actor,
  ): Promise<OperatorRole | null> {
    const audit = userAuditEntry(actor, this.now(), "user.operator", userId, { source, role });
    const { grants } = await this.store.setOperatorGrant(userId, source, role, audit);
    return effectiveOperatorRole(grantsOf(grants, isOperatorRole));
  }

  /**
   * Applies a provider's mapping at a sign-in: its grants (source "oidc:<provider>") become exactly what the
   * mapping gives — added, changed, and removed where the person left a group. Direct grants (invitations,
   * owners, operators, the CLI) are left as they are. Returns the accounts the mapping names that do not exist.
   */
  async applyProviderGrants(
    user: UserRecord,
    source: string,
    mapped: { operator: OperatorRole | null; accounts: ReadonlyMap<string, AccountRole> },
    actor: Actor,
  ): Promise<string[]> {
    await this.grantOperator(user.id, source, mapped.operator, actor);
    for (const [accountId, grants] of await this.store.memberships(user.id)) {
      if (grants[source] !== undefined && !mapped.accounts.has(accountId))
        await this.grant(accountId, user.id, source, null, actor);
    }
    const missing: string[] = [];
    for (const [accountId, role] of mapped.accounts) {
      try {
        await this.grant(accountId, user.id, source, role, actor);
      } catch (error) {
        if (!(error instanceof GatewayError && error.code === "account_not_found")) throw error;
        missing.push(accountId);
      }
    }
    return missing;
  }

  /** An account's members, their role and where it comes from. */
  async members(accountId: string): Promise<Member[]> {
    const members: Member[] = [];
    for (const [userId, stored] of await this.store.members(accountId)) {
      const user = await this.store.get(userId);
      const grants = grantsOf(stored, isAccountRole);
      const role = effectiveAccountRole(grants);
      if (user && role) members.push({ user, role, grants });
    }
    return members.sort((a, b) => a.user.name.localeCompare(b.user.name));
  }

  async member(accountId: string, userId: string): Promise<Member> {
    const grants = grantsOf(await this.store.accountGrants(accountId, userId), isAccountRole);
    const role = effectiveAccountRole(grants);
    const user = await this.store.get(userId);
    if (!role || !user)
      throw new GatewayError("member_not_found", `${userId} is not a member of account ${accountId}`);
    return { user, role, grants };
  }

  /** The accounts a person belongs to, their role and its sources. */
  async memberships(userId: string): Promise<Membership[]> {
    const found: Membership[] = [];
    for (const [accountId, stored] of await this.store.memberships(userId)) {
      const grants = grantsOf(stored, isAccountRole);
      const role = effectiveAccountRole(grants);
      if (role) found.push({ accountId, role, grants });
    }
    return found;
  }
}
