// Who is calling, and what they may do: the principal behind a credential. Four kinds of credential:
// a person's session (cookie), a person's API token, and the two legacy tokens — the operator's admin token
// (an `operator` credential) and an account's dashboard token (an `owner` of that account). A person's roles
// are read from Redis at every request (an account's members hash, the person's own record), so that a
// removal or a role change takes effect on the next request; an API token holds its own role, and only while
// the person who made it still holds that role.

import { GatewayError } from "../core/errors.js";
import {
  ACCOUNT_ROLES,
  type AccountRole,
  atLeast,
  effectiveAccountRole,
  effectiveOperatorRole,
  grantsOf,
  isAccountRole,
  isOperatorRole,
  OPERATOR_ROLES,
  type OperatorRole,
  type Role,
} from "../core/roles.js";
import type { Actor } from "../store/audit/audit-store.js";
import type { ApiTokenRecord } from "../store/people/api-token-store.js";
import type { UserRecord } from "../store/people/user-record.js";
import type { UserStore } from "../store/people/user-store.js";
import { type Action, allows, PERMISSIONS } from "./permissions.js";
import type { LiveSession } from "./sessions.js";

export type Credential =
  | { kind: "none" }
  | { kind: "admin-token" }
  | { kind: "account-token"; accountId: string }
  | { kind: "api-token"; token: ApiTokenRecord }
  | { kind: "session"; session: LiveSession };

export interface Principal {
  credential: Credential;
  /** The person behind the credential; null for the legacy tokens. */
  user: UserRecord | null;
  /** How changes made with this credential are recorded in the audit log. */
  actor: Actor;
  /** The operator role held over every account, or null. */
  operatorRole: OperatorRole | null;
  /** The role held in one account (an operator role aside), read afresh. */
  accountRole(accountId: string): Promise<AccountRole | null>;
  /** The accounts the principal has a role in (an operator role aside). */
  accounts(): Promise<Map<string, AccountRole>>;
}

/** The roles a principal holds in one account, its operator role included. */
export async function rolesIn(principal: Principal, accountId: string): Promise<Role[]> {
  const account = await principal.accountRole(accountId);
  return [principal.operatorRole, account].filter((role): role is Role => role !== null);
}

/**
 * Nobody: the caller of a public route (signing in) who presented no valid credential. Nobody changes
 * anything as nobody: asking for their actor is a bug, not an audit entry.
 */
export function anonymous(): Principal {
  return {
    credential: { kind: "none" },
    user: null,
    get actor(): Actor {
      throw new Error("nobody signed in makes no change of their own");
    },
    operatorRole: null,
    accountRole: async () => null,
    accounts: async () => new Map(),
  };
}

export function legacyAdmin(): Principal {
  return {
    credential: { kind: "admin-token" },
    user: null,
    actor: { kind: "admin" },
    operatorRole: "operator",
    accountRole: async () => null,
    accounts: async () => new Map(),
  };
}

export function legacyAccount(accountId: string): Principal {
  return {
    credential: { kind: "account-token", accountId },
    user: null,
    actor: { kind: "account", accountId },
    operatorRole: null,
    accountRole: async (id) => (id === accountId ? "owner" : null),
    accounts: async () => new Map([[accountId, "owner"]]),
  };
}

/** A person's own roles, as their grants say now. */
export function personRoles(user: UserRecord, users: UserStore) {
  const operatorRole = effectiveOperatorRole(grantsOf(user.operatorGrants, isOperatorRole));
  return {
    operatorRole,
    async accountRole(accountId: string): Promise<AccountRole | null> {
      return effectiveAccountRole(grantsOf(await users.accountGrants(accountId, user.id), isAccountRole));
    },
    async accounts(): Promise<Map<string, AccountRole>> {
      const roles = new Map<string, AccountRole>();
      for (const [accountId, grants] of await users.memberships(user.id)) {
        const role = effectiveAccountRole(grantsOf(grants, isAccountRole));
        if (role) roles.set(accountId, role);
      }
      return roles;
    },
  };
}

export function sessionPrincipal(session: LiveSession, user: UserRecord, users: UserStore): Principal {
  const actor: Actor =
    session.via === "oidc"
      ? { kind: "user", userId: user.id, name: user.name, via: "oidc", provider: session.provider ?? "" }
      : { kind: "user", userId: user.id, name: user.name, via: "password" };
  return { credential: { kind: "session", session }, user, actor, ...personRoles(user, users) };
}

/** Whether a person holds at least `role` in the account (an operator role counts in every account). */
export function holdsInAccount(
  operatorRole: OperatorRole | null,
  accountRole: AccountRole | null,
  role: AccountRole,
): boolean {
  if (operatorRole === "operator") return true;
  if (operatorRole === "operator-viewer" && role === "viewer") return true;
  return atLeast(ACCOUNT_ROLES, accountRole, role);
}

/**
 * An API token's principal: its own role, in its own scope, as long as the person who made it still holds
 * that role there (else it holds nothing, and every route refuses it with 403).
 */
export function tokenPrincipal(token: ApiTokenRecord, user: UserRecord, users: UserStore): Principal {
  const owner = personRoles(user, users);
  const operatorRole =
    isOperatorRole(token.role) && atLeast(OPERATOR_ROLES, owner.operatorRole, token.role) ? token.role : null;
  const tokenAccountRole = async (accountId: string): Promise<AccountRole | null> => {
    if (accountId !== token.accountId || !isAccountRole(token.role)) return null;
    const held = await owner.accountRole(accountId);
    return holdsInAccount(owner.operatorRole, held, token.role) ? token.role : null;
  };
  return {
    credential: { kind: "api-token", token },
    user,
    actor: { kind: "token", userId: user.id, name: user.name, tokenId: token.id, tokenName: token.name },
    operatorRole,
    accountRole: tokenAccountRole,
    async accounts() {
      if (token.accountId === null) return new Map();
      const role = await tokenAccountRole(token.accountId);
      return role ? new Map([[token.accountId, role]]) : new Map();
    },
  };
}

/**
 * Refuses the principal an action its roles do not allow, in `accountId` for an account action, with 403
 * forbidden naming what it may not do.
 */
export async function authorize(principal: Principal, action: Action, accountId?: string): Promise<void> {
  const permission = PERMISSIONS[action];
  if (permission.scope === "public" || action === "me") return;
  if (action === "me.manage") {
    if (principal.credential.kind !== "session")
      throw new GatewayError("forbidden", `Only a signed-in person may ${permission.does}: not a token.`);
    return;
  }
  if (permission.scope === "global") {
    if (!allows(action, principal.operatorRole ? [principal.operatorRole] : []))
      throw new GatewayError("forbidden", `${describe(principal)} may not ${permission.does}.`);
    return;
  }
  const id = accountId as string;
  const held = await rolesIn(principal, id);
  if (allows(action, held)) return;
  if (principal.credential.kind === "account-token")
    throw new GatewayError(
      "forbidden",
      `This token belongs to account ${principal.credential.accountId} and cannot ${
        held.length === 0 ? `access account ${id}` : permission.does
      }.`,
    );
  if (held.length === 0)
    throw new GatewayError("forbidden", `${describe(principal)} has no role in account ${id}.`);
  throw new GatewayError(
    "forbidden",
    `${describe(principal)} (${held.join(", ")} in account ${id}) may not ${permission.does.replace("this account", `account ${id}`)}.`,
  );
}

function describe(principal: Principal): string {
  switch (principal.credential.kind) {
    case "none":
      return "Nobody signed in";
    case "admin-token":
      return "The admin token";
    case "account-token":
      return `The token of account ${principal.credential.accountId}`;
    case "api-token":
      return `The API token ${principal.credential.token.name}`;
    case "session":
      return principal.user?.name ?? "This person";
  }
}
