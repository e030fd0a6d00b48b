// The sign-in routes, on the admin listener beside /admin/v1: which ways to sign in there are, signing in
// with an e-mail and password, signing out, and the one-time links — accepting an invitation, setting a
// password. They are public (no credential needed) but refuse requests from other origins (csrf.ts); the
// session cookie is set by the answer that signs in. The providers' redirect flow is in oidc-routes.ts.

import type { z } from "zod";
import { GatewayError } from "../core/errors.js";
import * as P from "./people-schemas.js";
import { personView } from "./people-views.js";
import type { Call, Route } from "./route.js";
import { endSession, startSession } from "./sign-in-session.js";

function localSignIn(call: Call): void {
  if (!call.services.identity.settings.localUsers)
    throw new GatewayError("not_found", "Password sign-in is off here (signIn.local.enabled).");
}

export const AUTH_ROUTES: readonly Route[] = [
  {
    method: "GET",
    path: "/auth/providers",
    operationId: "signInMethods",
    summary:
      "The ways to sign in here: each identity provider (a button), and whether the password form works",
    action: "public",
    status: 200,
    response: P.Providers,
    async handle({ services, principal, http }) {
      const cookie = http.cookies.get(http.cookieNames.session);
      return {
        session:
          principal.credential.kind === "session"
            ? "active"
            : cookie !== undefined && cookie !== ""
              ? "ended"
              : "none",
        providers: services.identity.settings.providers.map((provider) => ({
          id: provider.id,
          name: provider.name,
          start_url: `/auth/oidc/${provider.id}/start`,
        })),
        password: services.identity.settings.localUsers,
        min_password_length: services.identity.settings.minPasswordLength,
      };
    },
  },
  {
    method: "POST",
    path: "/auth/password",
    operationId: "signInWithPassword",
    summary:
      "Sign in with an e-mail and a local password; sets the session cookie (a new session id every time). Limited per e-mail and per address: 429 with Retry-After",
    action: "public",
    body: P.PasswordSignInBody,
    status: 200,
    response: P.SignedIn,
    async handle(call) {
      localSignIn(call);
      const { email, password } = call.body as z.infer<typeof P.PasswordSignInBody>;
      const user = await call.services.identity.passwords.signIn(email, password, call.http.address);
      const session = await startSession(call, user, { via: "password" });
      return { user: personView(user), csrf_token: session.csrfToken };
    },
  },
  {
    method: "POST",
    path: "/auth/sign-out",
    operationId: "signOut",
    summary: "End this session and forget its cookie",
    action: "me.manage",
    status: 200,
    response: P.SignedOut,
    async handle(call) {
      return { signed_out: await endSession(call) };
    },
  },
  {
    method: "POST",
    path: "/auth/invitations/preview",
    operationId: "previewInvitation",
    summary: "What an invitation link invites to (the token from its #/invite/<token>), without taking it",
    action: "public",
    body: P.LinkBody,
    status: 200,
    response: P.InvitationPreview,
    async handle({ body, services }) {
      const invitation = await services.identity.invitations.describe((body as { token: string }).token);
      const provider = services.identity.invitations.providerFor(invitation);
      return {
        provider: provider && {
          id: provider.id,
          name: provider.name,
          start_url: `/auth/oidc/${provider.id}/start`,
        },
        account_id: invitation.accountId,
        account_name: (await services.accounts.find(invitation.accountId))?.name ?? invitation.accountId,
        email: invitation.email,
        role: invitation.role,
        expires_at: new Date(invitation.expiresAt).toISOString(),
      };
    },
  },
  {
    method: "POST",
    path: "/auth/invitations/accept",
    operationId: "acceptInvitation",
    summary:
      "Accept an invitation: signed in with the invited e-mail, the membership is added; otherwise a local user is created with the password given and signed in",
    action: "public",
    body: P.AcceptInvitationBody,
    status: 200,
    response: P.AcceptedInvitation,
    async handle(call) {
      const input = call.body as z.infer<typeof P.AcceptInvitationBody>;
      const signedIn = call.principal.credential.kind === "session" ? call.principal : null;
      const { user, created, invitation } = await call.services.identity.invitations.accept(
        input.token,
        { password: input.password, name: input.name },
        signedIn,
      );
      const session = created ? await startSession(call, user, { via: "password" }, "invitation") : null;
      return {
        user: personView(user),
        account_id: invitation.accountId,
        role: invitation.role,
        created,
        csrf_token: session?.csrfToken ?? null,
      };
    },
  },
  {
    method: "POST",
    path: "/auth/password/set",
    operationId: "setPasswordWithLink",
    summary:
      "Set a password with a one-time link (from `users create` or `users reset-password`, the token from its #/set-password/<token>) and sign in",
    action: "public",
    body: P.SetPasswordBody,
    status: 200,
    response: P.SignedIn,
    async handle(call) {
      localSignIn(call);
      const { token, password } = call.body as z.infer<typeof P.SetPasswordBody>;
      const user = await call.services.identity.passwords.usePasswordLink(token, password);
      const session = await startSession(call, user, { via: "password" }, "set-password link");
      return { user: personView(user), csrf_token: session.csrfToken };
    },
  },
];
