// What the signed-in credential may do, read from GET /admin/v1/me's actions — the server's own permission
// table, so that the menus and buttons show exactly what the server would allow: an action in an account is
// allowed when it is in `every_account` (an operator role) or in that account's list (a membership). Pure, for
// the unit tests.

import type { Route } from "../route.js";
import type { Me } from "./types.js";

export type Action = Me["actions"]["global"][number];

/** Whether the credential may take `action`: over every account, or in `accountId` when given. */
export function can(me: Me, action: Action, accountId?: string): boolean {
  if (me.actions.global.includes(action) || me.actions.every_account.includes(action)) return true;
  return accountId !== undefined && (me.actions.accounts[accountId] ?? []).includes(action);
}

/** Whether the credential is a signed-in person (a session), who has sessions, tokens and a password. */
export function isPerson(me: Me): boolean {
  return me.credential === "session";
}

/** Where the start page is: every account for an operator role, else the first account of the person's. */
export function homeOf(me: Me): Route {
  if (can(me, "overview.read")) return { name: "operator" };
  const first = me.memberships[0];
  if (first) return { name: "account", accountId: first.account_id };
  // A legacy account token names its account even where it has no membership record.
  if (me.account_id !== null) return { name: "account", accountId: me.account_id };
  return { name: "home" };
}
