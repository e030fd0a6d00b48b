// How the admin API shows people, their sessions, API tokens, memberships and invitations: records of the
// stores turned into the shapes of people-schemas.ts (times ISO-8601, grants as lists).

import { effectiveOperatorRole, grantsOf, isOperatorRole, type Role } from "../core/roles.js";
import { allowedActions } from "../identity/permissions.js";
import type { Principal } from "../identity/principal.js";
import type { Member } from "../identity/role-grants.js";
import { sessionHandle } from "../identity/sessions.js";
import { isoOrNull } from "../services/views.js";
import type { ApiTokenRecord } from "../store/people/api-token-store.js";
import type { InvitationRecord } from "../store/people/invitation-store.js";
import type { SessionRecord } from "../store/people/session-store.js";
import type { UserRecord } from "../store/people/user-record.js";

const iso = (ms: number) => new Date(ms).toISOString();

export function grantList(grants: Readonly<Record<string, string>>) {
  return Object.entries(grants)
    .map(([source, role]) => ({ source, role }))
    .sort((a, b) => a.source.localeCompare(b.source));
}

export function personView(user: UserRecord) {
  return { id: user.id, name: user.name, email: user.email };
}

export function userView(user: UserRecord) {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    status: user.status,
    operator_role: effectiveOperatorRole(grantsOf(user.operatorGrants, isOperatorRole)),
    operator_grants: grantList(user.operatorGrants),
    providers: user.providers,
    password: user.passwordHash !== null,
    created_at: iso(user.createdAt),
    last_sign_in_at: isoOrNull(user.lastSignInAt),
  };
}

/** A session as its person sees it; `current` is the hash of the session the call came with. */
export function sessionView(session: SessionRecord, current: string | null) {
  return {
    id: sessionHandle(session.hash),
    created_at: iso(session.createdAt),
    last_seen_at: iso(session.lastSeenAt),
    via: session.via,
    provider: session.provider,
    user_agent: session.userAgent,
    address: session.address,
    current: session.hash === current,
  };
}

export function tokenView(token: ApiTokenRecord, now: number) {
  return {
    id: token.id,
    name: token.name,
    role: token.role,
    account_id: token.accountId,
    hint: token.hint,
    created_at: iso(token.createdAt),
    expires_at: iso(token.expiresAt),
    last_used_at: isoOrNull(token.lastUsedAt),
    expired: now >= token.expiresAt,
  };
}

export function memberView(member: Member) {
  return {
    user_id: member.user.id,
    name: member.user.name,
    email: member.user.email,
    status: member.user.status,
    role: member.role,
    grants: grantList(member.grants),
  };
}

export function invitationView(invitation: InvitationRecord) {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    created_at: iso(invitation.createdAt),
    expires_at: iso(invitation.expiresAt),
    invited_by: invitation.invitedBy,
  };
}

/** What the permission table allows a principal: over every account, in every account, per membership. */
export async function actionsOf(principal: Principal, memberships: ReadonlyMap<string, Role>) {
  const operator: Role[] = principal.operatorRole ? [principal.operatorRole] : [];
  return {
    global: allowedActions("global", operator),
    every_account: allowedActions("account", operator),
    accounts: Object.fromEntries(
      [...memberships].map(([accountId, role]) => [
        accountId,
        allowedActions("account", [...operator, role]),
      ]),
    ),
  };
}
