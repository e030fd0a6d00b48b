// The admin API's routes about every person, for operators: the users, one user with their memberships,
// tokens and sessions, disabling and enabling a user, revoking a user's API token, and the people's audit
// log (users created, disabled, enabled, operator roles, API tokens).

import type { z } from "zod";
import { validateUserId } from "../identity/users.js";
import * as L from "./link-schemas.js";
import * as P from "./people-schemas.js";
import { grantList, tokenView, userView } from "./people-views.js";
import { limitOf, type Route } from "./route.js";
import * as S from "./schemas.js";

const USER = "/admin/v1/users/{userId}";

export const USER_ROUTES: readonly Route[] = [
  {
    method: "GET",
    path: "/admin/v1/users",
    operationId: "listUsers",
    summary: "Every user: e-mail, status, operator role, how they sign in",
    action: "users.read",
    status: 200,
    response: P.Users,
    async handle({ services }) {
      return { users: (await services.identity.users.list()).map(userView) };
    },
  },
  {
    method: "GET",
    path: "/admin/v1/users/audit",
    operationId: "usersAudit",
    summary:
      "The audit log of every person (users created, disabled, enabled, passwords, operator roles, API tokens), newest first",
    action: "users.read",
    query: S.LimitQuery,
    status: 200,
    response: P.UserAuditLog,
    async handle({ query, services }) {
      const ids = (await services.identity.users.list()).map((user) => user.id);
      return { entries: await services.accounts.usersAudit(ids, limitOf(query)) };
    },
  },
  {
    method: "GET",
    path: USER,
    operationId: "showUser",
    summary: "A user, their memberships, their API tokens and how many sessions they have",
    action: "users.read",
    status: 200,
    response: P.UserDetail,
    async handle({ params, services }) {
      const { users, grants, tokens, sessions } = services.identity;
      const user = await users.find(validateUserId(params.userId));
      return {
        ...userView(user),
        memberships: (await grants.memberships(user.id)).map((m) => ({
          account_id: m.accountId,
          role: m.role,
          grants: grantList(m.grants),
        })),
        tokens: (await tokens.list(user.id)).map((token) => tokenView(token, services.now())),
        sessions: (await sessions.list(user.id)).length,
      };
    },
  },
  {
    method: "POST",
    path: `${USER}/disable`,
    operationId: "disableUser",
    summary: "Disable a user: their sessions end, their API tokens stop working, sign-in is refused",
    action: "users.write",
    status: 200,
    response: P.User,
    async handle({ principal, params, services }) {
      return userView(await services.identity.users.disable(validateUserId(params.userId), principal.actor));
    },
  },
  {
    method: "POST",
    path: `${USER}/enable`,
    operationId: "enableUser",
    summary: "Enable a disabled user again",
    action: "users.write",
    status: 200,
    response: P.User,
    async handle({ principal, params, services }) {
      return userView(await services.identity.users.enable(validateUserId(params.userId), principal.actor));
    },
  },
  {
    method: "POST",
    path: `${USER}/unlock`,
    operationId: "unlockUser",
    summary:
      "Lift the sign-in lock on a user's e-mail after too many failed passwords: their failures and lockouts are forgotten",
    action: "users.write",
    status: 200,
    response: L.Unlocked,
    async handle({ principal, params, services }) {
      const { users, passwords } = services.identity;
      const user = await users.find(validateUserId(params.userId));
      return { unlocked: await passwords.unlock(user, principal.actor) };
    },
  },
  {
    method: "POST",
    path: `${USER}/allow-link`,
    operationId: "allowProviderLink",
    summary:
      "Let the user's next sign-in with an identity provider (with their verified e-mail, within signIn.local.passwordLinkHours) link to them although they sign in another way",
    action: "users.write",
    body: L.AllowLinkBody,
    status: 200,
    response: L.LinkAllowed,
    async handle({ principal, params, body, services }) {
      const provider = (body as z.infer<typeof L.AllowLinkBody>).provider;
      const userId = validateUserId(params.userId);
      const until = await services.identity.people.allowLink(userId, provider, principal.actor);
      return { provider, until: new Date(until).toISOString() };
    },
  },
  {
    method: "DELETE",
    path: `${USER}/tokens/{tokenId}`,
    operationId: "revokeUserToken",
    summary: "Revoke a user's API token: it stops working at once",
    action: "users.write",
    status: 200,
    response: P.Revoked,
    async handle({ principal, params, services }) {
      await services.identity.tokens.revoke(
        validateUserId(params.userId),
        params.tokenId as string,
        principal.actor,
      );
      return { revoked: 1 };
    },
  },
];
