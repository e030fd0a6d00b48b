// Cross-site request forgery: a state-changing call authenticated by the session cookie (which the browser
// attaches on its own) must come from the dashboard's origin — the Origin header, or when a browser sent none
// Sec-Fetch-Site: same-origin or a Referer of that origin; a call with none of them is refused — and echo the
// session's CSRF token (GET /admin/v1/me) in x-csrf-token, which no other site can read. Signing in needs the
// origin check alone (there is no session yet): it keeps another site from signing a browser in as someone
// else. Bearer credentials are never sent by a browser on its own, so they need neither.

import type { IncomingMessage } from "node:http";
import { GatewayError } from "../core/errors.js";
import { sameSecret } from "../identity/secrets.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function changesState(method: string | undefined): boolean {
  return !SAFE_METHODS.has(method ?? "GET");
}

/** The dashboard's origin: admin.externalUrl's, else the admin listener's own as the request names it. */
export function dashboardOrigin(req: IncomingMessage, externalUrl: string | null): string {
  return externalUrl ?? `http://${req.headers.host ?? "invalid"}`;
}

function originOf(url: string | undefined): string | null {
  if (url === undefined || !URL.canParse(url)) return null;
  return new URL(url).origin;
}

/** Refuses a request that does not come from `origin`, with 403 csrf_refused. */
export function assertSameOrigin(req: IncomingMessage, origin: string): void {
  const header = req.headers.origin;
  if (header !== undefined && header !== "null") {
    if (header === origin) return;
    throw refused(`the request comes from ${header}, not from the dashboard (${origin})`);
  }
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined) {
    if (site === "same-origin") return;
    throw refused(`the browser says the request is ${site}`);
  }
  const referer = originOf(req.headers.referer);
  if (referer === origin) return;
  throw refused(
    referer === null ? "the request says nothing of where it comes from" : `it comes from ${referer}`,
  );
}

/** Refuses a state-changing request on the session cookie without the right origin and x-csrf-token. */
export function assertCsrf(req: IncomingMessage, origin: string, csrfToken: string): void {
  assertSameOrigin(req, origin);
  const given = req.headers["x-csrf-token"];
  if (typeof given !== "string" || !sameSecret(given, csrfToken))
    throw refused("its x-csrf-token header is missing or wrong (GET /admin/v1/me returns the session's)");
}

function refused(why: string): GatewayError {
  return new GatewayError("csrf_refused", `Refused as a possible cross-site request: ${why}.`);
}
