// The admin API's shapes, inferred from the server's own zod schemas (types only: nothing of zod is bundled).

import type { z } from "zod";
import type * as A from "../../alert-schemas.js";
import type * as S from "../../schemas.js";
import type * as U from "../../usage-schemas.js";

export type Me = z.infer<typeof S.Me>;
export type Account = z.infer<typeof S.Account>;
export type Key = z.infer<typeof S.Key>;
export type CreatedKey = z.infer<typeof S.CreatedKey>;
export type Usage = z.infer<typeof S.Usage>;
export type DailyUsage = z.infer<typeof S.DailyUsage>;
export type RequestLogEntry = z.infer<typeof S.RequestLogEntry>;
export type AuditLog = z.infer<typeof S.AuditLog>;
export type AuditEntry = z.infer<typeof S.AuditEntry>;
export type AccountAlerts = z.infer<typeof A.AccountAlerts>;
export type CreatedWebhook = z.infer<typeof A.CreatedWebhook>;
export type TestResult = z.infer<typeof A.TestResult>;
export type AlertEvent = z.infer<typeof A.AlertEvent>;
export type AlertEvents = z.infer<typeof A.AlertEvents>;
export type OperatorAlerts = z.infer<typeof A.OperatorAlerts>;
export type AccountUsage = z.infer<typeof U.AccountUsage>;
export type RequestPage = z.infer<typeof U.RequestPage>;
export type Overview = z.infer<typeof U.Overview>;

// What the dashboard sends: the request bodies as the server's schemas accept them (the forms send narrower
// values, which fit).
export type CreateKeyBody = z.input<typeof S.CreateKeyBody>;
export type UpdateKeyBody = z.input<typeof S.UpdateKeyBody>;

/** What GET /v1/key returns to the key's client, derived from the admin view of the key. */
export function clientKeyView(k: Key) {
  return {
    id: k.id,
    name: k.name,
    account_id: k.account_id,
    created_at: k.created_at,
    expires_at: k.expires_at,
    allowed_models: k.allowed_models,
    log_bodies: k.log_bodies,
    budget: k.budget,
    currency: k.currency,
    state: k.state,
    grace_until: k.grace_until,
    disabled_at: k.disabled_at,
    limits: k.limits,
  };
}
