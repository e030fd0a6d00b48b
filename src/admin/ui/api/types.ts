// The admin API's shapes, inferred from the server's own zod schemas (types only: nothing of zod is bundled),
// and the view a key's client gets.

import type { z } from "zod";
import { CLIENT_KEY_FIELDS, fieldSerializer } from "../../../services/key-fields.js";
import type * as K from "../../../services/key-schema.js";
import type * as G from "../../../services/usage-schema.js";
import type * as D from "../../../store/audit/audit-schema.js";
import type * as R from "../../../store/usage/request-log-schema.js";
import type * as A from "../../alert-schemas.js";
import type * as L from "../../link-schemas.js";
import type * as P from "../../people-schemas.js";
import type * as S from "../../schemas.js";
import type * as U from "../../usage-schemas.js";

export type Me = z.infer<typeof S.Me>;
export type LinkAllowed = z.infer<typeof L.LinkAllowed>;
export type Account = z.infer<typeof S.Account>;
export type AccountQueue = z.infer<typeof S.AccountQueue>;
export type AccountSharingBody = z.input<typeof S.AccountSharingBody>;
export type AccountBudgetsBody = z.input<typeof S.AccountBudgetsBody>;
export type Key = z.infer<typeof S.Key>;
export type ClientKey = z.infer<typeof K.ClientKey>;
export type CreatedKey = z.infer<typeof S.CreatedKey>;
export type Usage = z.infer<typeof G.Usage>;
export type DailyUsage = z.infer<typeof G.DailyUsage>;
export type RequestLogEntry = z.infer<typeof R.RequestLogEntry>;
export type AuditLog = z.infer<typeof S.AuditLog>;
export type AuditEntry = z.infer<typeof D.AuditEntry>;
export type AuditPerson = z.infer<typeof D.AuditPerson>;
export type AccountAlerts = z.infer<typeof A.AccountAlerts>;
export type CreatedWebhook = z.infer<typeof A.CreatedWebhook>;
export type TestResult = z.infer<typeof A.TestResult>;
export type AlertEvent = z.infer<typeof A.AlertEvent>;
export type AlertEvents = z.infer<typeof A.AlertEvents>;
export type OperatorAlerts = z.infer<typeof A.OperatorAlerts>;
export type AccountUsage = z.infer<typeof G.AccountUsage>;
export type RequestPage = z.infer<typeof U.RequestPage>;
export type Overview = z.infer<typeof U.Overview>;
// People: signing in, one's own sessions and tokens, an account's members and invitations, every user.
export type Providers = z.infer<typeof P.Providers>;
export type SignedIn = z.infer<typeof P.SignedIn>;
export type InvitationPreview = z.infer<typeof P.InvitationPreview>;
export type AcceptedInvitation = z.infer<typeof P.AcceptedInvitation>;
export type Session = z.infer<typeof P.Session>;
export type ApiToken = z.infer<typeof P.ApiToken>;
export type CreatedApiToken = z.infer<typeof P.CreatedApiToken>;
export type CreateApiTokenBody = z.input<typeof P.CreateApiTokenBody>;
export type Member = z.infer<typeof P.Member>;
export type Invitation = z.infer<typeof P.Invitation>;
export type CreatedInvitation = z.infer<typeof P.CreatedInvitation>;
export type User = z.infer<typeof P.User>;
export type UserAuditEntry = z.infer<typeof D.UserAuditEntry>;
export type AccountRole = Member["role"];

// What the dashboard sends: the request bodies as the server's schemas accept them (the forms send narrower
// values, which fit).
export type CreateKeyBody = z.input<typeof S.CreateKeyBody>;
export type UpdateKeyBody = z.input<typeof S.UpdateKeyBody>;

/**
 * What GET /v1/key returns to the key's client, from the admin API's view of the key: the fields the server's
 * ClientKey schema picks (services/key-schema.ts), written by the same serializer. The page takes the schema's
 * plain list of fields (services/key-fields.ts), not the schema itself, whose module would bring zod and the
 * server's code into the bundle; its type is the schema's, so the two cannot differ.
 */
export const clientKeyView: (key: Key) => ClientKey = fieldSerializer(CLIENT_KEY_FIELDS);
