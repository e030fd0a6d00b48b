// The public names that changed, each still answering beside its replacement until the version it goes away
// in: the one list the docs' table (docs/decisions.md#deprecated-names), the OpenAPI document's deprecated
// fields, the CLI's notices and the tests that the old names still answer are all read from.

/** The version the deprecated names below go away in: they answer through every 0.1 release. */
export const REMOVED_IN = "0.2.0";

/** Where a deprecated name is answered (or, for the CLI, taken). */
export const SURFACES = {
  key: "a key: `GET /v1/key`, `GET /v1/balance`'s `key`, the admin API's `Key`, the CLI's `keys … --json`",
  account: "an account: the admin API's `Account`, the CLI's `accounts … --json`",
  "budget.threshold": "the `budget.threshold` webhook's `data`",
  "key.created": "the `key.created` webhook's `data`",
  cli: "the CLI's commands",
} as const;

export type Surface = keyof typeof SURFACES;

export interface DeprecatedName {
  surface: Surface;
  /** The old name: a JSON path (`budget.initial`, `budgets[0]`) or, for the CLI, a command. */
  old: string;
  /** What answers the same now. */
  now: string;
}

export const DEPRECATED_NAMES: readonly DeprecatedName[] = [
  { surface: "key", old: "budget", now: "budgets[0]" },
  { surface: "key", old: "budget.initial", now: "budgets[0].amount" },
  { surface: "key", old: "budget.reset_at", now: "budgets[0].resets_at" },
  { surface: "account", old: "budget_alert_at", now: "alert_at" },
  { surface: "budget.threshold", old: "data.budget", now: "data.amount" },
  { surface: "budget.threshold", old: "data.reset_at", now: "data.resets_at" },
  { surface: "key.created", old: "data.budget", now: "data.amount" },
  { surface: "cli", old: "accounts budget set", now: "accounts budgets set" },
  { surface: "cli", old: "accounts budget clear", now: "accounts budgets clear" },
];

/** The OpenAPI metadata of a deprecated field: flagged, and saying what replaces it and when it goes. */
export function deprecatedField(now: string): { deprecated: true; description: string } {
  return { deprecated: true, description: `Deprecated: ${now}, the same value; goes away in ${REMOVED_IN}` };
}

/** The line the CLI writes on stderr when an old spelling of a command is used. */
export function deprecationNotice(old: string, now: string): string {
  return `warning: \`${old}\` is deprecated and goes away in ${REMOVED_IN}: use \`${now}\``;
}
