// The audit log's details as sentences in the reader's language: "Budget changed from ₽50.00 per day to
// ₽100.00 per month". Pure, for the unit tests.
//
// An entry records only the new values of what it changed (see src/services/keys.ts and key-input.ts). The
// old ones are read from the older entries of the same key or account in the list: every change is audited,
// so the latest older entry that set a field holds its value before the change. Where no older entry in the
// list tells (the list is the newest entries only), the sentence says what the value was set to.

import { isPeriod } from "../../../core/periods.js";
import type { AuditEntry } from "../api/types.js";
import type { Lang, MessageKey } from "../i18n/lookup.js";
import { Words, windowParts } from "./audit-words.js";

/** A key's or an account's fields as far as the entries seen so far tell; absent where none has. */
type Known = Record<string, unknown>;

/** The fields a key's change sentence knows, in the order its sentences come. */
const KEY_FIELDS = [
  "name",
  "budget",
  "period",
  "allowed_models",
  "expires_at",
  "log_bodies",
  "rpm",
  "tpm",
  "max_parallel",
  "alert_at",
] as const;

/** Fields that are described as "changed from … to …", each with its value's form. */
const CHANGES: Record<string, (w: Words, value: unknown) => string> = {
  name: (w, value) => w.quoted(value),
  allowed_models: (w, value) => w.models(value),
  expires_at: (w, value) => w.expiry(value),
  rpm: (w, value) => w.limit(value),
  tpm: (w, value) => w.limit(value),
  max_parallel: (w, value) => w.limit(value),
  alert_at: (w, value) => w.thresholds(value),
  low_balance: (w, value) => (value === null ? w.t("audit.v.noMark") : w.rub(value)),
  weight: (w, value) => w.plain(value),
  priority: (w, value) => (value === null ? w.t("audit.v.noPriority") : w.plain(value)),
  max_wait_ms: (w, value) => (value === null ? w.t("audit.v.defaultWait") : w.ms(value)),
};

/** The fields of a change of how an account or a key shares a full model server. */
const SHARING_FIELDS = ["weight", "priority", "max_wait_ms"] as const;

const has = (object: Record<string, unknown>, name: string) => Object.hasOwn(object, name);

/** A field the sentences do not know: its name made readable, and its value. */
function generic(w: Words, name: string, value: unknown): string {
  return w.t("audit.generic", { field: name.replace(/[_.]/g, " "), value: w.plain(value) });
}

/** Joins clauses into sentences: each capitalised, each ending with a full stop. */
function sentences(w: Words, clauses: string[]): string {
  return clauses
    .filter((clause) => clause !== "")
    .map((clause) => {
      const text = clause.charAt(0).toLocaleUpperCase(w.lang) + clause.slice(1);
      return /[.!?]$/.test(text) ? text : `${text}.`;
    })
    .join(" ");
}

/** "X changed from A to B" when the old value is known, "X set to B" when it is not. */
function change(w: Words, field: string, before: Known, value: unknown): string {
  const form = CHANGES[field];
  if (!form) return generic(w, field, value);
  const to = form(w, value);
  if (!has(before, field)) return w.t(`audit.f.${field}.set` as MessageKey, { to });
  return w.t(`audit.f.${field}.changed` as MessageKey, { from: form(w, before[field]), to });
}

/** The budget and its period are one thing to a reader: "₽50.00 per day". */
function budgetChange(w: Words, before: Known, details: Record<string, unknown>): string {
  const amount = has(details, "budget") ? details.budget : before.budget;
  const period = has(details, "period") ? details.period : before.period;
  if (!has(details, "budget") && !has(before, "budget")) {
    // Only the period changed, and the amount is not known.
    const name = isPeriod(period) ? w.t(`field.period.${period}`) : w.plain(period);
    return w.t("audit.f.period.set", { period: name.toLocaleLowerCase(w.lang) });
  }
  const to = w.budget(amount, period);
  if (!has(before, "budget")) return w.t("audit.f.budget.set", { to });
  return w.t("audit.f.budget.changed", { from: w.budget(before.budget, before.period), to });
}

function keyChanges(w: Words, before: Known, details: Record<string, unknown>): string[] {
  const clauses: string[] = [];
  if (has(details, "budgets")) {
    const none = Array.isArray(details.budgets) && details.budgets.length === 0;
    clauses.push(
      none ? w.t("audit.f.budgets.removed") : w.t("audit.f.budgets.set", { to: w.windows(details.budgets) }),
    );
  }
  for (const field of KEY_FIELDS) {
    if (!has(details, field)) continue;
    if (field === "period" && has(details, "budget")) continue;
    if (field === "budget" || field === "period") clauses.push(budgetChange(w, before, details));
    else if (field === "log_bodies")
      clauses.push(w.t(details.log_bodies === true ? "audit.bodiesOn" : "audit.bodiesOff"));
    else clauses.push(change(w, field, before, details[field]));
  }
  return [...clauses, ...others(w, details, [...KEY_FIELDS, "budgets"])];
}

/** What a new key was created with. */
function keyCreated(w: Words, details: Record<string, unknown>): string {
  const parts = [
    has(details, "budgets")
      ? w.t("audit.c.budgets", { budgets: w.windows(details.budgets) })
      : details.budget === null || details.budget === undefined
        ? w.t("keys.noBudget")
        : w.t("audit.c.budget", { budget: w.budget(details.budget, details.period) }),
    details.expires_at === null || details.expires_at === undefined
      ? w.t("audit.c.noExpiry")
      : w.t("audit.c.expires", { date: w.instant(details.expires_at) }),
    details.allowed_models === null || details.allowed_models === undefined
      ? w.t("keys.allModels")
      : w.t("audit.c.models", { list: w.list(details.allowed_models) }),
    w.t(details.log_bodies === false ? "keys.bodiesOff" : "keys.bodiesOn"),
  ];
  for (const [field, message] of [
    ["rpm", "key.limit.rpm"],
    ["tpm", "key.limit.tpm"],
    ["max_parallel", "key.limit.parallel"],
  ] as const) {
    const value = details[field];
    if (typeof value === "number")
      parts.push(w.t("audit.c.limit", { limit: w.t(message, { n: w.num(value) }) }));
  }
  if (has(details, "alert_at")) {
    const none = Array.isArray(details.alert_at) && details.alert_at.length === 0;
    parts.push(none ? w.t("keyAlerts.off") : w.thresholds(details.alert_at));
  }
  const created = w.t("audit.keyCreated", { name: w.plain(details.name), details: parts.join(", ") });
  return sentences(w, [created, ...others(w, details, [...KEY_FIELDS, "budgets"])]);
}

/** The fields of an entry that its sentence did not cover, in the generic form. */
function others(w: Words, details: Record<string, unknown>, covered: readonly string[]): string[] {
  return Object.entries(details)
    .filter(([name]) => !covered.includes(name))
    .map(([name, value]) => generic(w, name, value));
}

function describe(w: Words, entry: AuditEntry, before: Known): string {
  const d = entry.details;
  const name = w.plain(d.name);
  switch (entry.action) {
    case "account.create":
      return sentences(w, [
        w.t("audit.accountCreated", { name, balance: w.rub(d.balance ?? 0) }),
        ...others(w, d, ["name", "balance"]),
      ]);
    case "account.topup":
      return sentences(w, [w.t("audit.topUp", { amount: w.rub(d.amount) }), ...others(w, d, ["amount"])]);
    case "account.token.create":
      return sentences(w, [w.t("audit.tokenCreated", { hint: w.plain(d.hint) }), ...others(w, d, ["hint"])]);
    case "account.token.revoke":
      return sentences(w, [w.t("audit.tokenRevoked"), ...others(w, d, [])]);
    case "account.alerts.update":
      return sentences(w, [
        ...(has(d, "low_balance") ? [change(w, "low_balance", before, d.low_balance)] : []),
        ...others(w, d, ["low_balance"]),
      ]);
    case "account.webhook.set": {
      const events =
        d.events === null || d.events === undefined ? w.t("alerts.webhook.allEvents") : w.list(d.events);
      return sentences(w, [
        w.t("audit.webhookSet", { origin: w.plain(d.origin), events }),
        ...others(w, d, ["origin", "events"]),
      ]);
    }
    case "account.sharing.update":
    case "key.sharing.update":
      return sentences(w, [
        ...SHARING_FIELDS.filter((field) => has(d, field)).map((field) => change(w, field, before, d[field])),
        ...others(w, d, SHARING_FIELDS),
      ]);
    case "account.webhook.remove":
      return sentences(w, [w.t("audit.webhookRemoved"), ...others(w, d, [])]);
    case "account.budgets.update":
      return sentences(w, [
        w.t("audit.accountBudgets", {
          billing: w.plain(d.billing),
          budgets: Array.isArray(d.budgets) && d.budgets.length > 0 ? w.list(d.budgets) : "—",
        }),
        ...others(w, d, ["billing", "budgets"]),
      ]);
    case "key.create":
      return keyCreated(w, d);
    case "key.update":
      return sentences(w, keyChanges(w, before, d));
    case "key.rotate": {
      const rotated = w.t("audit.rotated", {
        name,
        hint: w.plain(d.hint),
        previous: w.plain(d.previous_hint),
      });
      const grace =
        d.grace_until === null || d.grace_until === undefined
          ? w.t("audit.graceNone")
          : w.t("audit.graceUntil", { date: w.instant(d.grace_until) });
      return sentences(w, [
        `${rotated}; ${grace}`,
        ...others(w, d, ["name", "hint", "previous_hint", "grace_until"]),
      ]);
    }
    case "key.disable":
      return sentences(w, [w.t("audit.keyDisabled", { name }), ...others(w, d, ["name"])]);
    case "key.enable":
      return sentences(w, [w.t("audit.keyEnabled", { name }), ...others(w, d, ["name"])]);
    case "key.revoke":
      return sentences(w, [w.t("audit.keyRevoked", { name }), ...others(w, d, ["name"])]);
    case "member.grant":
    case "member.remove":
    case "invitation.create":
    case "invitation.accept":
    case "invitation.revoke":
    case "token.create":
    case "token.revoke":
      return sentences(w, [...peopleDetails(w, d), ...others(w, d, PEOPLE_FIELDS)]);
    default:
      return sentences(w, others(w, d, []));
  }
}

/** A new account's sharing: weight 1, no priority of its own, the gateway's longest wait. */
const DEFAULT_SHARING = { weight: 1, priority: null, max_wait_ms: null };
/** The fields of the people's entries that their headline (audit-actor.ts) says, or that are ids ("raw"). */
const PEOPLE_FIELDS = [
  "user_id",
  "name",
  "email",
  "role",
  "source",
  "invitation_id",
  "token_id",
  "account_id",
  "days",
];

/** Where a role came from, and how long a token lasts: what the headline of a people's entry leaves out. */
function peopleDetails(w: Words, d: Record<string, unknown>): string[] {
  const clauses: string[] = [];
  if (d.source === "direct") clauses.push(w.t("audit.source.direct"));
  else if (typeof d.source === "string" && d.source.startsWith("oidc:"))
    clauses.push(w.t("audit.source.provider", { provider: d.source.slice("oidc:".length) }));
  if (typeof d.days === "number") clauses.push(w.t("audit.tokenDays", { days: w.num(d.days) }));
  return clauses;
}

/** Whose fields an entry changes: its key's, or else its account's. */
const subject = (entry: AuditEntry) => (entry.key_id ? `key:${entry.key_id}` : `account:${entry.account_id}`);

/**
 * Each entry's details as sentences in `lang`, the entries given newest first as the API lists them;
 * instants in `timeZone` (the browser's by default).
 */
export function auditSentences(lang: Lang, entries: readonly AuditEntry[], timeZone?: string): string[] {
  const w = new Words(lang, timeZone);
  const known = new Map<string, Known>();
  const result: string[] = new Array(entries.length);
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as AuditEntry;
    const id = subject(entry);
    const before = known.get(id) ?? {};
    result[i] = describe(w, entry, before);
    const after: Known = { ...before, ...entry.details };
    // A new key's alert thresholds are recorded only when they are not the defaults; a new account has no
    // low-balance mark.
    if (entry.action === "key.create" && !has(entry.details, "alert_at")) after.alert_at = null;
    if (entry.action === "account.create") Object.assign(after, { low_balance: null, ...DEFAULT_SHARING });
    if (entry.action === "key.create") Object.assign(after, { priority: null, max_wait_ms: null });
    // Windows set all at once: the first is the key's budget and period, as a later single change reads them.
    if (entry.action === "key.update" && Array.isArray(entry.details.budgets)) {
      const first = windowParts(entry.details.budgets[0]);
      after.budget = first === null ? null : first.amount;
      if (first !== null) after.period = first.period;
    }
    known.set(id, after);
  }
  return result;
}

/** The details as recorded, `name: value` each: what the sentence was made from. */
export function rawDetails(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([name, value]) => `${name}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" · ");
}
