// The dashboard's calls about people: the ways to sign in and signing in or out, one-time links (invitations,
// set-password), the signed-in person's own sessions, API tokens and password, an account's members and
// invitations, and every user for operators. Spread into endpoints.ts's `api`, so a view has one object to
// call. The sign-in routes and the links are anonymous: their 401 is an answer, not a session that ended.

import { call, queryOf } from "./client.js";
import type {
  AcceptedInvitation,
  AccountRole,
  ApiToken,
  CreateApiTokenBody,
  CreatedApiToken,
  CreatedInvitation,
  Invitation,
  InvitationPreview,
  LinkAllowed,
  Member,
  Providers,
  Session,
  SignedIn,
  User,
  UserAuditEntry,
} from "./types.js";

const enc = encodeURIComponent;
const account = (id: string) => `/admin/v1/accounts/${enc(id)}`;
const anonymous = (body: unknown) => ({ body, anonymous: true });

export const peopleCalls = {
  providers: () => call<Providers>("GET", "/auth/providers", { anonymous: true }),
  signInWithPassword: (email: string, password: string) =>
    call<SignedIn>("POST", "/auth/password", anonymous({ email, password })),
  signOut: () => call<{ signed_out: boolean }>("POST", "/auth/sign-out"),
  previewInvitation: (token: string) =>
    call<InvitationPreview>("POST", "/auth/invitations/preview", anonymous({ token })),
  acceptInvitation: (token: string, person?: { name: string; password: string }) =>
    call<AcceptedInvitation>("POST", "/auth/invitations/accept", anonymous({ token, ...person })),
  setPasswordWithLink: (token: string, password: string) =>
    call<SignedIn>("POST", "/auth/password/set", anonymous({ token, password })),

  mySessions: () => call<{ sessions: Session[] }>("GET", "/admin/v1/me/sessions"),
  revokeMySession: (id: string) => call<{ revoked: number }>("DELETE", `/admin/v1/me/sessions/${enc(id)}`),
  signOutEverywhere: () => call<{ revoked: number }>("POST", "/admin/v1/me/sessions/revoke-all"),
  changeMyPassword: (currentPassword: string, newPassword: string) =>
    call<{ changed: boolean }>("POST", "/admin/v1/me/password", {
      body: { current_password: currentPassword, new_password: newPassword },
    }),
  linkProvider: (providerId: string, returnTo = "/#/me") =>
    call<{ url: string }>("POST", `/auth/oidc/${enc(providerId)}/link`, { body: { return_to: returnTo } }),
  myTokens: () => call<{ tokens: ApiToken[] }>("GET", "/admin/v1/me/tokens"),
  createMyToken: (body: CreateApiTokenBody) => call<CreatedApiToken>("POST", "/admin/v1/me/tokens", { body }),
  revokeMyToken: (id: string) => call<{ revoked: number }>("DELETE", `/admin/v1/me/tokens/${enc(id)}`),

  members: (accountId: string) => call<{ members: Member[] }>("GET", `${account(accountId)}/members`),
  setMemberRole: (accountId: string, userId: string, role: AccountRole) =>
    call<Member>("PATCH", `${account(accountId)}/members/${enc(userId)}`, { body: { role } }),
  removeMember: (accountId: string, userId: string) =>
    call<{ removed: boolean }>("DELETE", `${account(accountId)}/members/${enc(userId)}`),
  invitations: (accountId: string) =>
    call<{ invitations: Invitation[] }>("GET", `${account(accountId)}/invitations`),
  invite: (accountId: string, email: string, role: AccountRole) =>
    call<CreatedInvitation>("POST", `${account(accountId)}/invitations`, { body: { email, role } }),
  revokeInvitation: (accountId: string, invitationId: string) =>
    call<{ removed: boolean }>("DELETE", `${account(accountId)}/invitations/${enc(invitationId)}`),

  users: () => call<{ users: User[] }>("GET", "/admin/v1/users"),
  disableUser: (userId: string) => call<User>("POST", `/admin/v1/users/${enc(userId)}/disable`),
  enableUser: (userId: string) => call<User>("POST", `/admin/v1/users/${enc(userId)}/enable`),
  unlockUser: (userId: string) =>
    call<{ unlocked: boolean }>("POST", `/admin/v1/users/${enc(userId)}/unlock`),
  allowLink: (userId: string, provider: string) =>
    call<LinkAllowed>("POST", `/admin/v1/users/${enc(userId)}/allow-link`, { body: { provider } }),
  usersAudit: (limit = 100) =>
    call<{ entries: UserAuditEntry[] }>("GET", `/admin/v1/users/audit${queryOf({ limit })}`),
};
