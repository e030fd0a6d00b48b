// How the admin API shows accounts and keys: an account's view plus whether it has a dashboard token, and a
// key's complete view (hint, revocation time, period and alert thresholds included) through the Key schema.

import type { PeriodCalendar } from "../core/periods.js";
import { Key, serializerFor } from "../services/key-schema.js";
import { accountView, completeKeyView, type ViewClock } from "../services/views.js";
import type { AccountRecord, KeyRecord } from "../store/records.js";

export function adminAccountView(account: AccountRecord, clock: ViewClock) {
  return { ...accountView(account, clock), token: account.tokenHint ? { hint: account.tokenHint } : null };
}

const adminKey = serializerFor(Key);

/** A key as the admin API shows it to its owner or an operator: its complete view, through the Key schema. */
export function adminKeyView(key: KeyRecord, now: number, calendar: PeriodCalendar) {
  return adminKey(completeKeyView(key, now, calendar));
}
