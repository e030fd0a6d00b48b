// How the admin API shows accounts and keys: the client's view plus what only owners and operators see
// (the key's hint, its revocation time; whether the account has a dashboard token).

import type { PeriodCalendar } from "../core/periods.js";
import { accountView, isoOrNull, keyView } from "../services/views.js";
import type { AccountRecord, KeyRecord } from "../store/records.js";

export function adminAccountView(account: AccountRecord) {
  return { ...accountView(account), token: account.tokenHint ? { hint: account.tokenHint } : null };
}

export function adminKeyView(key: KeyRecord, now: number, calendar: PeriodCalendar) {
  const view = keyView(key, now, calendar);
  return {
    id: view.id,
    name: view.name,
    account_id: view.account_id,
    hint: key.hint,
    created_at: view.created_at,
    expires_at: view.expires_at,
    revoked_at: isoOrNull(key.revokedAt),
    state: view.state,
    grace_until: view.grace_until,
    disabled_at: view.disabled_at,
    allowed_models: view.allowed_models,
    log_bodies: view.log_bodies,
    budget: view.budget,
    period: key.period,
    limits: view.limits,
    alert_at: key.alertAt,
    currency: view.currency,
  };
}
