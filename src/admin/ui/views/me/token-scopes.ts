// The roles a person may give an API token of theirs: their operator role or a lower one, and in each
// account of theirs their role there or a lower one — as the server allows (at most a role they hold).
// Pure, for the unit tests.

import type { Me } from "../../api/types.js";

export interface TokenScope {
  /** The select's value: the role, "@" and the account for an account's role. */
  value: string;
  role: "operator" | "operator-viewer" | "owner" | "member" | "viewer";
  accountId: string | null;
}

const OPERATOR_LADDER = ["operator", "operator-viewer"] as const;
const ACCOUNT_LADDER = ["owner", "member", "viewer"] as const;

export function tokenScopes(me: Pick<Me, "operator_role" | "memberships">): TokenScope[] {
  const scopes: TokenScope[] = [];
  if (me.operator_role !== null)
    for (const role of OPERATOR_LADDER.slice(OPERATOR_LADDER.indexOf(me.operator_role)))
      scopes.push({ value: role, role, accountId: null });
  for (const membership of me.memberships)
    for (const role of ACCOUNT_LADDER.slice(ACCOUNT_LADDER.indexOf(membership.role)))
      scopes.push({ value: `${role}@${membership.account_id}`, role, accountId: membership.account_id });
  return scopes;
}
