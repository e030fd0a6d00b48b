// The admin API's shapes for SCIM provisioning: the SCIM tokens (their value only in the answer that makes
// one) and the SCIM log (tokens made and revoked, groups pushed, renamed and deleted); a token's view, which
// the CLI prints too.

import { z } from "zod";
import { isoTime } from "../core/time-schema.js";
import { ScimAuditEntry } from "../store/audit/audit-schema.js";
import type { ScimTokenRecord } from "../store/people/scim-token-store.js";

export const ScimToken = z
  .object({
    id: z.string(),
    name: z.string(),
    hint: z.string().meta({ description: "The value's last characters" }),
    created_at: isoTime,
    created_by: z.string().meta({ description: "Who made it, as the audit log names actors" }),
    last_used_at: isoTime.nullable(),
  })
  .meta({ id: "ScimToken" });

export const ScimTokens = z.object({ tokens: z.array(ScimToken) }).meta({ id: "ScimTokens" });

export const CreatedScimToken = ScimToken.extend({
  token: z.string().meta({ description: "The value (sk-tunnel-scim-…), shown this once" }),
}).meta({ id: "CreatedScimToken" });

export const CreateScimTokenBody = z
  .strictObject({ name: z.string() })
  .meta({ id: "CreateScimToken", examples: [{ name: "okta" }] });

export const ScimAuditLog = z.object({ entries: z.array(ScimAuditEntry) }).meta({ id: "ScimAuditLog" });

export function scimTokenView(token: ScimTokenRecord): z.infer<typeof ScimToken> {
  return {
    id: token.id,
    name: token.name,
    hint: token.hint,
    created_at: new Date(token.createdAt).toISOString(),
    created_by: token.createdBy,
    last_used_at: token.lastUsedAt === null ? null : new Date(token.lastUsedAt).toISOString(),
  };
}
