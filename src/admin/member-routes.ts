// The admin API's routes about an account's people: its members (their role and where it comes from),
// changing a member's role and removing one, and invitations — listed, sent (the link is in the answer,
// once) and revoked. For the account's owners and operators.

import type { z } from "zod";
import { DIRECT } from "../core/roles.js";
import { validateUserId } from "../identity/users.js";
import * as P from "./people-schemas.js";
import { invitationView, memberView } from "./people-views.js";
import { ACCOUNT, type Route } from "./route.js";

export const MEMBER_ROUTES: readonly Route[] = [
  {
    method: "GET",
    path: `${ACCOUNT}/members`,
    operationId: "listMembers",
    summary:
      "The account's members: each one's role, and the grants it comes from (direct, or a provider's groups)",
    action: "members.read",
    status: 200,
    response: P.Members,
    async handle({ params, services }) {
      await services.accounts.show(params.accountId);
      return {
        members: (await services.identity.grants.members(params.accountId as string)).map(memberView),
      };
    },
  },
  {
    method: "PATCH",
    path: `${ACCOUNT}/members/{userId}`,
    operationId: "updateMember",
    summary:
      "Set a member's direct role; a role from a provider's group mapping stays, and the highest grant is the member's role",
    action: "members.write",
    body: P.UpdateMemberBody,
    status: 200,
    response: P.Member,
    async handle({ principal, params, body, services }) {
      const accountId = params.accountId as string;
      const userId = validateUserId(params.userId);
      const { grants } = services.identity;
      await grants.member(accountId, userId);
      await grants.grant(
        accountId,
        userId,
        DIRECT,
        (body as z.infer<typeof P.UpdateMemberBody>).role,
        principal.actor,
      );
      return memberView(await grants.member(accountId, userId));
    },
  },
  {
    method: "DELETE",
    path: `${ACCOUNT}/members/{userId}`,
    operationId: "removeMember",
    summary:
      "Remove a member from the account, from the next request on (a provider's mapping gives its grant back at the member's next sign-in)",
    action: "members.write",
    status: 200,
    response: P.Removed,
    async handle({ principal, params, services }) {
      await services.identity.grants.removeMember(
        params.accountId as string,
        validateUserId(params.userId),
        principal.actor,
      );
      return { removed: true };
    },
  },
  {
    method: "GET",
    path: `${ACCOUNT}/invitations`,
    operationId: "listInvitations",
    summary: "The account's pending invitations",
    action: "members.read",
    status: 200,
    response: P.Invitations,
    async handle({ params, services }) {
      await services.accounts.show(params.accountId);
      const invitations = await services.identity.invitations.list(params.accountId as string);
      return { invitations: invitations.map(invitationView) };
    },
  },
  {
    method: "POST",
    path: `${ACCOUNT}/invitations`,
    operationId: "createInvitation",
    summary:
      "Invite an e-mail into the account with a role; the answer holds the one-time link (expiring, single use), the only time it is shown",
    action: "members.write",
    body: P.CreateInvitationBody,
    status: 201,
    response: P.CreatedInvitation,
    async handle({ principal, params, body, services, http }) {
      const { invitation, url } = await services.identity.invitations.create(
        params.accountId as string,
        body as z.infer<typeof P.CreateInvitationBody>,
        principal.actor,
        http.origin,
      );
      return { ...invitationView(invitation), url };
    },
  },
  {
    method: "DELETE",
    path: `${ACCOUNT}/invitations/{invitationId}`,
    operationId: "revokeInvitation",
    summary: "Revoke a pending invitation: its link stops working",
    action: "members.write",
    status: 200,
    response: P.Removed,
    async handle({ principal, params, services }) {
      await services.identity.invitations.revoke(
        params.accountId as string,
        params.invitationId as string,
        principal.actor,
      );
      return { removed: true };
    },
  },
];
