// The permission table: every action of the admin API and which roles may take it. The admin router enforces
// it (each route names its action), GET /admin/v1/me reports from it what a person may do in each account so
// that the dashboard's menus follow the same table, and a test checks every route of the OpenAPI document
// against it for every role. docs/sign-in.md shows it as a table.
//
// Scopes: an `account` action concerns the account in the path (a person's role in that account, or an
// operator role, which covers every account); a `global` action concerns every account (operator roles only);
// `self` actions concern the caller (any credential: `me`; a signed-in person only: `me.manage`); `public`
// needs no credential at all (signing in).

import type { Role } from "../core/roles.js";

export type Scope = "account" | "global" | "self" | "public";

export interface Permission {
  scope: Scope;
  /** Reads change nothing: operator-viewer may take every one of them. */
  kind: "read" | "write";
  /** The roles allowed (self and public actions: none needed). */
  roles: readonly Role[];
  /** Completes "may not …" in a refusal. */
  does: string;
}

const ALL_ACCOUNT_ROLES: readonly Role[] = ["operator", "operator-viewer", "owner", "member", "viewer"];

export const PERMISSIONS = {
  // Signing in, out, and who the caller is
  public: { scope: "public", kind: "read", roles: [], does: "sign in" },
  me: { scope: "self", kind: "read", roles: [], does: "see who they are" },
  "me.manage": {
    scope: "self",
    kind: "write",
    roles: [],
    does: "manage a person's own sessions, API tokens and password (sign in as a person)",
  },
  // Accounts
  "account.read": { scope: "account", kind: "read", roles: ALL_ACCOUNT_ROLES, does: "see this account" },
  "accounts.create": { scope: "global", kind: "write", roles: ["operator"], does: "create an account" },
  "account.topup": { scope: "account", kind: "write", roles: ["operator"], does: "top up an account" },
  "account.sharing": {
    scope: "account",
    kind: "write",
    roles: ["operator"],
    does: "change how this account shares a full model server",
  },
  "account.budgets": {
    scope: "account",
    kind: "write",
    roles: ["operator"],
    does: "change how this account pays and its budgets",
  },
  "audit.read": {
    scope: "account",
    kind: "read",
    roles: ALL_ACCOUNT_ROLES,
    does: "read this account's audit log",
  },
  "audit.read-all": {
    scope: "global",
    kind: "read",
    roles: ["operator", "operator-viewer"],
    does: "read the audit log of every account",
  },
  // Keys and usage
  "keys.read": { scope: "account", kind: "read", roles: ALL_ACCOUNT_ROLES, does: "see this account's keys" },
  "keys.write": {
    scope: "account",
    kind: "write",
    roles: ["operator", "owner", "member"],
    does: "create, change, rotate, disable, enable or revoke this account's keys",
  },
  "usage.read": {
    scope: "account",
    kind: "read",
    roles: ALL_ACCOUNT_ROLES,
    does: "see this account's usage and requests",
  },
  "overview.read": {
    scope: "global",
    kind: "read",
    roles: ["operator", "operator-viewer"],
    does: "see every account",
  },
  // Alerts
  "events.read": {
    scope: "account",
    kind: "read",
    roles: ["operator", "operator-viewer", "owner", "member"],
    does: "see this account's alert events",
  },
  "alerts.read": {
    scope: "account",
    kind: "read",
    roles: ["operator", "operator-viewer", "owner"],
    does: "see this account's alert settings",
  },
  "alerts.write": {
    scope: "account",
    kind: "write",
    roles: ["operator", "owner"],
    does: "change this account's alert settings or webhook",
  },
  "operator-alerts.read": {
    scope: "global",
    kind: "read",
    roles: ["operator", "operator-viewer"],
    does: "read the operator's alert settings",
  },
  "operator-alerts.test": {
    scope: "global",
    kind: "write",
    roles: ["operator"],
    does: "test the operator's webhooks",
  },
  // People
  "members.read": {
    scope: "account",
    kind: "read",
    roles: ["operator", "operator-viewer", "owner"],
    does: "see this account's members and invitations",
  },
  "members.write": {
    scope: "account",
    kind: "write",
    roles: ["operator", "owner"],
    does: "invite, change or remove this account's members",
  },
  "users.read": {
    scope: "global",
    kind: "read",
    roles: ["operator", "operator-viewer"],
    does: "see every user",
  },
  "users.write": {
    scope: "global",
    kind: "write",
    roles: ["operator"],
    does: "disable or enable users, lift their sign-in locks, allow their provider links, or revoke their tokens",
  },
  // SCIM provisioning
  "scim.read": {
    scope: "global",
    kind: "read",
    roles: ["operator", "operator-viewer"],
    does: "see the SCIM tokens and the SCIM log",
  },
  "scim.write": {
    scope: "global",
    kind: "write",
    roles: ["operator"],
    does: "make or revoke SCIM tokens",
  },
} as const satisfies Record<string, Permission>;

export type Action = keyof typeof PERMISSIONS;

export const ACTIONS = Object.keys(PERMISSIONS) as Action[];

export function permissionOf(action: Action): Permission {
  return PERMISSIONS[action];
}

/** Whether any of the roles held allows the action (self and public actions need none). */
export function allows(action: Action, held: Iterable<Role>): boolean {
  const permission: Permission = PERMISSIONS[action];
  if (permission.scope === "self" || permission.scope === "public") return true;
  for (const role of held) if (permission.roles.includes(role)) return true;
  return false;
}

/** The actions of a scope the roles held allow, in the table's order. */
export function allowedActions(scope: "account" | "global", held: readonly Role[]): Action[] {
  return ACTIONS.filter((action) => PERMISSIONS[action].scope === scope && allows(action, held));
}
