// Key lifetimes: a duration such as `15m`, `2h`, `30d`, `1w` or `1h30m`, or `never`. Anything shorter than
// fifteen minutes is refused, so that a typo such as `15s` cannot mint a key that dies before it is used.

import { GatewayError } from "../errors.js";

export const MIN_LIFETIME_MS = 15 * 60 * 1000;
/** Longer lifetimes are what `never` is for; the cap keeps expiry timestamps far from overflow. */
export const MAX_LIFETIME_MS = 100 * 365 * 24 * 3600 * 1000;

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60 * 1000,
  h: 3600 * 1000,
  d: 24 * 3600 * 1000,
  w: 7 * 24 * 3600 * 1000,
};
const DURATION = /^(?:\d+[smhdw])+$/;
const PART = /(\d+)([smhdw])/g;

/** Milliseconds of a lifetime, or null for `never` (unlimited). */
export function parseLifetime(input: string): number | null {
  const text = input.trim().toLowerCase();
  if (text === "never") return null;
  if (!DURATION.test(text)) {
    throw new GatewayError(
      "invalid_request",
      `lifetime must be a duration such as 15m, 2h, 30d, 1w or 1h30m (units s, m, h, d, w), or "never"; got ${JSON.stringify(input)}`,
    );
  }
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(PART))
    ms += Number(amount) * (UNIT_MS[unit as string] as number);
  if (ms < MIN_LIFETIME_MS) {
    throw new GatewayError(
      "invalid_request",
      `lifetime must be at least 15 minutes (15m) or "never"; got ${JSON.stringify(input)}`,
    );
  }
  if (ms > MAX_LIFETIME_MS) {
    throw new GatewayError(
      "invalid_request",
      `lifetime must be at most 100 years; use "never" for a key without expiry`,
    );
  }
  return ms;
}
