// The admin API's routes about the caller: who they are and what they may do (GET /admin/v1/me, which
// drives the dashboard's menus), and — for a signed-in person — their sessions, their API tokens and their
// password.

import type { z } from "zod";
import { GatewayError } from "../core/errors.js";
import type { Identity } from "../identity/identity.js";
import type { Principal } from "../identity/principal.js";
import { sessionHandle } from "../identity/sessions.js";
import * as P from "./people-schemas.js";
import { actionsOf, personView, sessionView, tokenView } from "./people-views.js";
import type { Call, Route } from "./route.js";

const ME = "/admin/v1/me";

function person(principal: Principal) {
  if (!principal.user)
    throw new GatewayError("forbidden", "Only a signed-in person has sessions and tokens.");
  return principal.user;
}

/** The hash of the session the call came with, or null for a token. */
function currentSession(principal: Principal): string | null {
  return principal.credential.kind === "session" ? principal.credential.session.hash : null;
}

/** Reports sessions a person ended (the event, and an entry in their audit log). */
async function sessionsRevoked(
  identity: Identity,
  principal: Principal,
  outcome: "revoked" | "everywhere" | "password_changed",
  count: number,
  address: string,
): Promise<void> {
  const user = person(principal);
  identity.events.publish("session.revoke", outcome, { userId: user.id, count, address });
  await identity.users.record(user.id, principal.actor, "user.sessions_revoked", { reason: outcome, count });
}

async function me({ principal, services }: Call) {
  const { credential } = principal;
  const roles = await principal.accounts();
  const memberships = await Promise.all(
    [...roles].map(async ([accountId, role]) => ({
      account_id: accountId,
      account_name: (await services.accounts.find(accountId))?.name ?? accountId,
      role,
    })),
  );
  const session = credential.kind === "session" ? credential.session : null;
  const { settings } = services.identity;
  return {
    role: principal.operatorRole !== null ? "admin" : "account",
    account_id: principal.operatorRole !== null ? null : (memberships[0]?.account_id ?? null),
    timezone: services.calendar.zone,
    credential: credential.kind,
    user: principal.user ? personView(principal.user) : null,
    signed_in_with: session ? { via: session.via, provider: session.provider } : null,
    linked_providers: principal.user?.providers ?? [],
    operator_role: principal.operatorRole,
    memberships,
    actions: await actionsOf(principal, roles),
    csrf_token: session?.csrfToken ?? null,
    session: session && {
      id: sessionHandle(session.hash),
      created_at: new Date(session.createdAt).toISOString(),
      expires_at: new Date(session.createdAt + settings.absoluteMs).toISOString(),
      idle_timeout_seconds: settings.idleMs / 1000,
    },
  };
}

export const ME_ROUTES: readonly Route[] = [
  {
    method: "GET",
    path: ME,
    operationId: "whoAmI",
    summary:
      "Who the credential belongs to, their operator role and memberships, what they may do in each account, and the session's CSRF token",
    action: "me",
    status: 200,
    response: P.Me,
    handle: me,
  },
  {
    method: "GET",
    path: `${ME}/sessions`,
    operationId: "listMySessions",
    summary: "The signed-in person's sessions: when and how each began, when last seen, from where",
    action: "me.manage",
    status: 200,
    response: P.Sessions,
    async handle({ principal, services }) {
      const sessions = await services.identity.sessions.list(person(principal).id);
      return { sessions: sessions.map((s) => sessionView(s, currentSession(principal))) };
    },
  },
  {
    method: "DELETE",
    path: `${ME}/sessions/{sessionId}`,
    operationId: "revokeMySession",
    summary: "End one of the signed-in person's sessions (on whatever browser it is)",
    action: "me.manage",
    status: 200,
    response: P.Revoked,
    async handle({ principal, params, services, http }) {
      const user = person(principal);
      await services.identity.sessions.revoke(user.id, params.sessionId as string);
      await sessionsRevoked(services.identity, principal, "revoked", 1, http.address);
      return { revoked: 1 };
    },
  },
  {
    method: "POST",
    path: `${ME}/sessions/revoke-all`,
    operationId: "revokeAllMySessions",
    summary: "Sign out everywhere: end every session of the signed-in person, this one included",
    action: "me.manage",
    status: 200,
    response: P.Revoked,
    async handle({ principal, services, http }) {
      const revoked = await services.identity.sessions.revokeAll(person(principal).id);
      await sessionsRevoked(services.identity, principal, "everywhere", revoked, http.address);
      return { revoked };
    },
  },
  {
    method: "POST",
    path: `${ME}/password`,
    operationId: "changeMyPassword",
    summary:
      "Change the signed-in person's local password (the current one is asked for); other sessions end",
    action: "me.manage",
    body: P.ChangePasswordBody,
    status: 200,
    response: P.PasswordChanged,
    async handle({ principal, body, services, http }) {
      const user = person(principal);
      const input = body as z.infer<typeof P.ChangePasswordBody>;
      // Checked as a sign-in is, attempt limits included: a session someone else got hold of is no way to
      // guess the password it was opened with.
      const { identity } = services;
      await identity.passwords.signIn(user.email, input.current_password, http.address, "password.change");
      try {
        await identity.users.setPassword(user.id, input.new_password, principal.actor);
      } catch (error) {
        if (error instanceof GatewayError && error.code === "weak_password")
          identity.events.publish("password.change", "weak_password", { userId: user.id });
        throw error;
      }
      identity.events.publish("password.change", "success", { userId: user.id, address: http.address });
      const ended = await identity.sessions.revokeOthers(user.id, currentSession(principal));
      if (ended > 0) await sessionsRevoked(identity, principal, "password_changed", ended, http.address);
      return { changed: true };
    },
  },
  {
    method: "GET",
    path: `${ME}/tokens`,
    operationId: "listMyTokens",
    summary: "The signed-in person's API tokens (their values are never shown again)",
    action: "me.manage",
    status: 200,
    response: P.ApiTokens,
    async handle({ principal, services }) {
      const tokens = await services.identity.tokens.list(person(principal).id);
      return { tokens: tokens.map((token) => tokenView(token, services.now())) };
    },
  },
  {
    method: "POST",
    path: `${ME}/tokens`,
    operationId: "createMyToken",
    summary:
      "Create an API token with a role the person holds (operator, operator-viewer, or a role in one account); its value is in this answer and never again",
    action: "me.manage",
    body: P.CreateApiTokenBody,
    status: 201,
    response: P.CreatedApiToken,
    async handle({ principal, body, services }) {
      const input = body as z.infer<typeof P.CreateApiTokenBody>;
      const { record, value } = await services.identity.tokens.create(principal, {
        name: input.name,
        role: input.role,
        accountId: input.account_id,
        days: input.days,
      });
      return { ...tokenView(record, services.now()), token: value };
    },
  },
  {
    method: "DELETE",
    path: `${ME}/tokens/{tokenId}`,
    operationId: "revokeMyToken",
    summary: "Revoke one of the signed-in person's API tokens: it stops working at once",
    action: "me.manage",
    status: 200,
    response: P.Revoked,
    async handle({ principal, params, services }) {
      await services.identity.tokens.revoke(person(principal).id, params.tokenId as string, principal.actor);
      return { revoked: 1 };
    },
  },
];
