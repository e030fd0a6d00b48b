// Webhook signatures, in Stripe's scheme: `X-Tunnel-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<body>">`, keyed with the endpoint's secret (its whole text, as UTF-8). The receiver recomputes it over
// the raw body, compares in constant time and refuses an old t, which stops replays
// (docs/alerts-and-webhooks.md has the snippet).

import { createHmac, randomBytes } from "node:crypto";

export const EVENT_ID_HEADER = "x-tunnel-event-id";
export const SIGNATURE_HEADER = "x-tunnel-signature";

/** Secrets the gateway generates for accounts' webhooks: `whsec_` and 32 random bytes in hex. */
export const SECRET_PREFIX = "whsec_";
/** Shortest secret accepted for the operator's webhooks (from their environment variables). */
export const MIN_SECRET_LENGTH = 16;

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("hex");
}

/** The X-Tunnel-Signature value of `body` sent at `timestamp` (unix seconds). */
export function signature(secret: string, body: string, timestamp: number): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  return `t=${timestamp},v1=${v1}`;
}
