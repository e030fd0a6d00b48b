// Key lifetimes (and rotation grace periods, in the same units): a duration such as `15m`, `2h`, `30d`, `1w` or `1h30m`, or `never`. Units are m, h, d and w,
// in lower case only: `30M` could mean minutes or months, and a key that lives a thousand times shorter or
// longer than intended is worse than a refusal, so anything else is refused with the list of units. Anything
// shorter than fifteen minutes is refused too, so that a typo cannot mint a key that dies before it is used.

import { GatewayError } from "../core/errors.js";

export const MIN_LIFETIME_MS = 15 * 60 * 1000;
/** Longer lifetimes are what `never` is for; the cap keeps expiry timestamps far from overflow. */
export const MAX_LIFETIME_MS = 100 * 365 * 24 * 3600 * 1000;

const UNIT_MS: Record<string, number> = {
  m: 60 * 1000,
  h: 3600 * 1000,
  d: 24 * 3600 * 1000,
  w: 7 * 24 * 3600 * 1000,
};
const DURATION = /^(?:\d+[mhdw])+$/;
const PART = /(\d+)([mhdw])/g;

/** The accepted units, as the refusal lists them. */
export const LIFETIME_UNITS = "m (minutes), h (hours), d (days), w (weeks)";

export type LifetimeProblem = "format" | "min" | "max";
export type Lifetime = { ok: true; ms: number | null } | { ok: false; problem: LifetimeProblem };

/**
 * Reads a lifetime without throwing: its milliseconds (null for `never`) or what is wrong with it. The
 * dashboard's form uses this too, so that the page and the server cannot disagree.
 */
export function readLifetime(input: string): Lifetime {
  const text = input.trim();
  if (text === "never") return { ok: true, ms: null };
  const ms = durationMs(text);
  if (ms === null) return { ok: false, problem: "format" };
  if (ms < MIN_LIFETIME_MS) return { ok: false, problem: "min" };
  if (ms > MAX_LIFETIME_MS) return { ok: false, problem: "max" };
  return { ok: true, ms };
}

/** Milliseconds of a duration such as 1h30m, or null when the text is not one. */
function durationMs(text: string): number | null {
  if (!DURATION.test(text)) return null;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(PART))
    ms += Number(amount) * (UNIT_MS[unit as string] as number);
  return ms;
}

const MESSAGES: Record<LifetimeProblem, (input: string) => string> = {
  format: (input) =>
    `lifetime must be a duration such as 15m, 2h, 30d, 1w or 1h30m, in units ${LIFETIME_UNITS}, lower case, or "never"; got ${JSON.stringify(input)}`,
  min: (input) => `lifetime must be at least 15 minutes (15m) or "never"; got ${JSON.stringify(input)}`,
  max: () => `lifetime must be at most 100 years; use "never" for a key without expiry`,
};

/** Milliseconds of a lifetime, or null for `never` (unlimited); refuses anything else with a message. */
export function parseLifetime(input: string): number | null {
  const lifetime = readLifetime(input);
  if (!lifetime.ok) throw new GatewayError("invalid_request", MESSAGES[lifetime.problem](input));
  return lifetime.ms;
}

/** The longest grace period a rotated-out key value may get: long enough to roll out a secret everywhere. */
export const MAX_GRACE_MS = 7 * 24 * 3600 * 1000;

/**
 * Milliseconds of a rotation's grace period: `0` (none, the default) or a duration in the same units as a
 * lifetime, at most seven days. Refuses anything else with a message.
 */
export function parseGrace(input: string): number {
  const text = input.trim();
  if (text === "0") return 0;
  const ms = durationMs(text);
  if (ms === null) {
    throw new GatewayError(
      "invalid_request",
      `grace must be 0 or a duration such as 30m, 24h or 7d, in units ${LIFETIME_UNITS}, lower case; got ${JSON.stringify(input)}`,
    );
  }
  if (ms > MAX_GRACE_MS) {
    throw new GatewayError(
      "invalid_request",
      `grace must be at most 7 days (7d); got ${JSON.stringify(input)}`,
    );
  }
  return ms;
}
