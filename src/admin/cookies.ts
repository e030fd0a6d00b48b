// The admin listener's cookies: the session cookie and the short-lived cookie that binds a sign-in with a
// provider to the browser that started it. Over HTTPS (admin.externalUrl https://) they carry the __Host-
// prefix and Secure — the browser then refuses them from any other origin or path, or over plain HTTP; on
// plain HTTP (development on loopback) they have plain names. Always HttpOnly (no script reads them),
// SameSite=Lax (not sent on cross-site subrequests or form posts), Path=/.

import type { IncomingMessage } from "node:http";

export interface CookieNames {
  session: string;
  signIn: string;
  secure: boolean;
}

export function cookieNames(externalUrl: string | null): CookieNames {
  const secure = externalUrl?.startsWith("https://") ?? false;
  const prefix = secure ? "__Host-" : "";
  return { session: `${prefix}tg_session`, signIn: `${prefix}tg_sign_in`, secure };
}

/** The request's cookies by name (the first of a name wins; malformed pairs are skipped). */
export function readCookies(req: IncomingMessage): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (req.headers.cookie ?? "").split(";")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    if (name !== "" && !cookies.has(name)) cookies.set(name, pair.slice(at + 1).trim());
  }
  return cookies;
}

/** A Set-Cookie value; `maxAgeSeconds` 0 deletes the cookie, undefined makes it last the browser session. */
export function cookie(name: string, value: string, secure: boolean, maxAgeSeconds?: number): string {
  return [
    `${name}=${value}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    ...(secure ? ["Secure"] : []),
    ...(maxAgeSeconds !== undefined ? [`Max-Age=${maxAgeSeconds}`] : []),
  ].join("; ");
}
