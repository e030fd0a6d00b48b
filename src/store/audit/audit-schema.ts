// An audit entry as JSON, defined once as zod schemas: what the Lua scripts append to an account's or a
// person's audit log (audit-store.ts writes it), which the admin API lists (its OpenAPI components) and the
// dashboard reads (its types) — the person behind a change (AuditPerson) among it. It is here, with the
// store that writes it, below every layer that reads it. Entries written before people could sign in have
// no `by`.

import { z } from "zod";
import { isoTime } from "../../core/time-schema.js";

export const ACCOUNT_AUDIT_ACTIONS = [
  "account.create",
  "account.topup",
  "account.token.create",
  "account.token.revoke",
  "key.create",
  "key.update",
  "key.rotate",
  "key.disable",
  "key.enable",
  "key.revoke",
  "account.alerts.update",
  "account.webhook.set",
  "account.webhook.remove",
  "member.grant",
  "member.remove",
  "invitation.create",
  "invitation.accept",
  "invitation.revoke",
  "token.create",
  "token.revoke",
  "account.sharing.update",
  "key.sharing.update",
  "account.budgets.update",
] as const;

export const USER_AUDIT_ACTIONS = [
  "user.create",
  "user.update",
  "user.disable",
  "user.enable",
  "user.password",
  "user.operator",
  "token.create",
  "token.revoke",
  "user.delete",
  "user.group.add",
  "user.group.remove",
  "user.sign_in",
  "user.sign_in_failed",
  "user.lockout",
  "user.unlock",
  "user.sessions_revoked",
  "user.provider_check",
  "user.provider_link",
] as const;

/** The SCIM log: its tokens and its groups, which belong to no account and no person. */
export const SCIM_AUDIT_ACTIONS = [
  "scim.token.create",
  "scim.token.revoke",
  "scim.group.create",
  "scim.group.update",
  "scim.group.delete",
] as const;

export const AuditPerson = z
  .object({
    user_id: z.string(),
    name: z.string(),
    via: z.enum(["oidc", "password", "token"]),
    provider: z.string().optional(),
    token_id: z.string().optional(),
    token_name: z.string().optional(),
  })
  .meta({ id: "AuditPerson", description: "The person who made the change, and how they were signed in" });
/** The person behind a change, as entries record it. */
export type AuditPerson = z.output<typeof AuditPerson>;

/** Who made a change and when: what every entry opens with. */
const who = {
  at: isoTime,
  actor: z.string().meta({
    description:
      "admin, cli or account:<id> (the legacy credentials and the CLI); user:<id> or token:<id> (a person); scim:<id> (a SCIM client); anonymous (someone not signed in: failed sign-ins and lockouts)",
  }),
  by: AuditPerson.optional(),
};

export const AuditEntry = z
  .object({
    ...who,
    action: z.enum(ACCOUNT_AUDIT_ACTIONS),
    account_id: z.string(),
    key_id: z.string().optional(),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "AuditEntry" });
export type AuditEntry = z.output<typeof AuditEntry>;

export const UserAuditEntry = z
  .object({
    ...who,
    action: z.enum(USER_AUDIT_ACTIONS),
    user_id: z.string(),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "UserAuditEntry" });
export type UserAuditEntry = z.output<typeof UserAuditEntry>;

export const ScimAuditEntry = z
  .object({
    ...who,
    action: z.enum(SCIM_AUDIT_ACTIONS),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "ScimAuditEntry" });
export type ScimAuditEntry = z.output<typeof ScimAuditEntry>;
