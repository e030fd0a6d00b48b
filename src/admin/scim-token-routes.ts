// The admin API's routes for SCIM provisioning, for operators: the SCIM tokens an identity provider's
// provisioning authenticates with (made, listed, revoked) and the SCIM log. SCIM itself (/scim/v2) is served
// by scim-handler.ts, with its own credential and error shape.

import * as P from "./people-schemas.js";
import { limitOf, type Route } from "./route.js";
import * as S from "./schemas.js";
import * as C from "./scim-schemas.js";
import { scimTokenView } from "./scim-schemas.js";

export const SCIM_TOKEN_ROUTES: readonly Route[] = [
  {
    method: "GET",
    path: "/admin/v1/scim/tokens",
    operationId: "listScimTokens",
    summary: "The SCIM tokens: name, last characters, who made them and when, their last use",
    action: "scim.read",
    status: 200,
    response: C.ScimTokens,
    async handle({ services }) {
      return { tokens: (await services.identity.scim.tokens.list()).map(scimTokenView) };
    },
  },
  {
    method: "POST",
    path: "/admin/v1/scim/tokens",
    operationId: "createScimToken",
    summary: "Make a SCIM token for an identity provider's provisioning; its value is in this answer only",
    action: "scim.write",
    body: C.CreateScimTokenBody,
    status: 201,
    response: C.CreatedScimToken,
    async handle({ principal, body, services }) {
      const { name } = body as { name: string };
      const { record, value } = await services.identity.scim.tokens.create(name, principal.actor);
      return { ...scimTokenView(record), token: value };
    },
  },
  {
    method: "DELETE",
    path: "/admin/v1/scim/tokens/{tokenId}",
    operationId: "revokeScimToken",
    summary: "Revoke a SCIM token: the next SCIM request with it gets 401",
    action: "scim.write",
    status: 200,
    response: P.Revoked,
    async handle({ principal, params, services }) {
      await services.identity.scim.tokens.revoke(params.tokenId as string, principal.actor);
      return { revoked: 1 };
    },
  },
  {
    method: "GET",
    path: "/admin/v1/scim/audit",
    operationId: "scimAudit",
    summary: "The SCIM log (tokens made and revoked, groups pushed, renamed and deleted), newest first",
    action: "scim.read",
    query: S.LimitQuery,
    status: 200,
    response: C.ScimAuditLog,
    async handle({ query, services }) {
      return { entries: await services.identity.scim.audit(limitOf(query)) };
    },
  },
];
