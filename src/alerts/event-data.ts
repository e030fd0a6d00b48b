// The webhook body each alert event type becomes (the types themselves are in core/event-types.ts). The Lua
// scripts write an event's own fields as strings (amounts in µ₽, times in ms; see
// src/store/lua/includes/emitEvent.lua); here they become the `data` receivers see: amounts in rubles as
// /v1/key shows them, times as ISO-8601, a budget window's fields as every surface writes a window
// (core/budget-window-schema.ts).

import { budgetWindowView } from "../core/budget-window-view.js";
import { type EventType, isEventType, type TEST_EVENT_TYPE } from "../core/event-types.js";
import { type Micros, rublesForJson } from "../core/money.js";
import { isPeriod, periodsAt } from "../core/periods.js";

/** An event as the webhook body carries it. */
export interface WebhookBody {
  id: string;
  type: EventType | typeof TEST_EVENT_TYPE;
  created_at: string;
  /** null only for a test event sent to one of the operator's webhooks. */
  account_id: string | null;
  key_id: string | null;
  data: Record<string, unknown>;
}

/** The fields the scripts wrote for one event, by name (all strings). */
type Fields = Readonly<Record<string, string>>;

const CURRENCY = "RUB";

/** The `data` of each type, from the fields its script wrote, with the billing time zone for reset times. */
const DATA: Record<EventType, (fields: Fields, zone: string) => Record<string, unknown>> = {
  "budget.threshold": (f, zone) => {
    const period = isPeriod(f.period) ? f.period : "month";
    const start = Number(f.period_start);
    // The spent amount is the charge's own, in the period that started at period_start: never rolled over.
    const window = budgetWindowView(
      period,
      micros(f.budget),
      micros(f.spent),
      Number.isFinite(start) ? periodsAt(start, zone)[period].end : 0,
    );
    // Only an event written without its period's start (none of the scripts does) has no reset time.
    const resetsAt = Number.isFinite(start) ? window.resets_at : null;
    // An account's own window (scope account) names the account; a key's, the key (as before windows).
    const account = f.scope === "account";
    return {
      scope: account ? "account" : "key",
      ...(account ? { account_name: f.name ?? "" } : { key_name: f.name ?? "" }),
      threshold: Number(f.threshold),
      ...window,
      resets_at: resetsAt,
      currency: CURRENCY,
      // The old names of amount and resets_at (core/deprecated-names.ts).
      budget: window.amount,
      reset_at: resetsAt,
    };
  },
  "balance.low": (f) => ({
    balance: rublesForJson(micros(f.balance)),
    low_balance: rublesForJson(micros(f.low_balance)),
    currency: CURRENCY,
  }),
  "balance.exhausted": (f) => ({ balance: rublesForJson(micros(f.balance)), currency: CURRENCY }),
  "key.expiring": (f) => ({
    key_name: f.name ?? "",
    expires_at: iso(Number(f.expires_at)),
    days_left: Number(f.days),
  }),
  "key.expired": (f) => ({ key_name: f.name ?? "", expires_at: iso(Number(f.expires_at)) }),
  "key.created": (f) => {
    // The key's first window: its amount (null without a budget) and period.
    const amount = f.budget ? rublesForJson(micros(f.budget)) : null;
    return {
      key_name: f.name ?? "",
      expires_at: f.expires_at ? iso(Number(f.expires_at)) : null,
      period: f.period ?? "month",
      amount,
      currency: CURRENCY,
      // The old name of amount (core/deprecated-names.ts).
      budget: amount,
    };
  },
  "key.revoked": (f) => ({ key_name: f.name ?? "", revoked_at: iso(Number(f.revoked_at)) }),
  "key.rotated": (f) => ({
    key_name: f.name ?? "",
    hint: f.hint ?? "",
    previous_hint: f.previous_hint ?? "",
    grace_until: f.grace_until ? iso(Number(f.grace_until)) : null,
  }),
  "key.disabled": (f) => ({ key_name: f.name ?? "" }),
  "key.enabled": (f) => ({ key_name: f.name ?? "" }),
};

/** What one event says: its type's data, or, for a type this version does not know, its fields as written. */
export function eventData(type: string, fields: Fields, zone: string): Record<string, unknown> {
  return isEventType(type) ? DATA[type](fields, zone) : { ...fields };
}

function micros(text: string | undefined): Micros {
  return Number(text ?? 0);
}

/** An ISO-8601 time, or null for a field that is missing or not a time (never a throw: the event must go out). */
function iso(ms: number): string | null {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}
