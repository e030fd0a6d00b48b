// The roles a person or an API token can hold, and how several grants of them combine. A person's roles come
// from grants, each named by its source — "direct" (the CLI, an invitation, an owner or an operator) or
// "oidc:<provider>" (that provider's group mapping, replaced at every sign-in) — and the highest grant wins.

/** Roles over every account: `operator` may do everything, `operator-viewer` read everything. */
export const OPERATOR_ROLES = ["operator", "operator-viewer"] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** Roles in one account, highest first. */
export const ACCOUNT_ROLES = ["owner", "member", "viewer"] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

export type Role = OperatorRole | AccountRole;

/** Grants by source: "direct", "oidc:<provider id>" for a provider's group mapping, or "scim". */
export type Grants<R extends string> = Readonly<Record<string, R>>;

export const DIRECT = "direct";

/** The source of the grants SCIM group memberships give (docs/scim.md). */
export const SCIM = "scim";

export function oidcSource(providerId: string): string {
  return `oidc:${providerId}`;
}

export function isOperatorRole(value: unknown): value is OperatorRole {
  return (OPERATOR_ROLES as readonly unknown[]).includes(value);
}

export function isAccountRole(value: unknown): value is AccountRole {
  return (ACCOUNT_ROLES as readonly unknown[]).includes(value);
}

/** The highest of some roles of one ladder (OPERATOR_ROLES or ACCOUNT_ROLES, highest first), or null. */
export function highest<R extends string>(ladder: readonly R[], roles: Iterable<R>): R | null {
  let best: R | null = null;
  for (const role of roles) {
    if (best === null || ladder.indexOf(role) < ladder.indexOf(best)) best = role;
  }
  return best;
}

export function effectiveAccountRole(grants: Grants<AccountRole>): AccountRole | null {
  return highest(ACCOUNT_ROLES, Object.values(grants));
}

export function effectiveOperatorRole(grants: Grants<OperatorRole>): OperatorRole | null {
  return highest(OPERATOR_ROLES, Object.values(grants));
}

/** True when `held` is `wanted` or above it on the same ladder. */
export function atLeast<R extends string>(ladder: readonly R[], held: R | null, wanted: R): boolean {
  return held !== null && ladder.indexOf(held) <= ladder.indexOf(wanted);
}

/** The grants of one ladder's roles among grants as stored, dropping anything else. */
export function grantsOf<R extends string>(
  stored: Readonly<Record<string, string>>,
  isRole: (value: unknown) => value is R,
): Grants<R> {
  return Object.fromEntries(Object.entries(stored).filter(([, role]) => isRole(role))) as Grants<R>;
}
