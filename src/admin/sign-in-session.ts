// Starting and ending the session of a person who signs in or out: a new session id at every sign-in (any
// session the browser already had is ended first, so that an id planted before sign-in is worth nothing),
// handed over in the session cookie.

import type { LiveSession } from "../identity/sessions.js";
import type { SignInMethod } from "../store/audit/audit-store.js";
import type { UserRecord } from "../store/people/user-record.js";
import { cookie } from "./cookies.js";
import type { Call } from "./route.js";

/**
 * Starts the session of a person who has just proved who they are; `how` says by what when it was not the
 * sign-in form or a provider (an invitation accepted, a set-password link), for the event's detail.
 */
export async function startSession(
  call: Call,
  user: UserRecord,
  method: SignInMethod,
  how?: string,
): Promise<LiveSession> {
  const { identity } = call.services;
  const names = call.http.cookieNames;
  // Ended, not forgotten: the new cookie below takes the old one's place in the browser.
  const previous = call.http.cookies.get(names.session);
  if (previous) await identity.sessions.end(previous);
  const { id, session } = await identity.sessions.start(user.id, method, {
    userAgent: call.http.userAgent,
    address: call.http.address,
  });
  await identity.users.signedIn(user, method, call.http.address);
  call.http.setCookie(cookie(names.session, id, names.secure));
  identity.events.publish(method.via === "oidc" ? "sign_in.oidc" : "sign_in.password", "success", {
    userId: user.id,
    address: call.http.address,
    ...(method.via === "oidc" && { provider: method.provider }),
    ...(how !== undefined && { detail: how }),
  });
  return session;
}

/** Ends the session the browser's cookie names (if any) and has the browser forget the cookie. */
export async function endSession(call: Call): Promise<boolean> {
  const names = call.http.cookieNames;
  const id = call.http.cookies.get(names.session);
  if (id === undefined || id === "") return false;
  const { identity } = call.services;
  await identity.sessions.end(id);
  call.http.setCookie(cookie(names.session, "", names.secure, 0));
  identity.events.publish("session.revoke", "signed_out", {
    ...(call.principal.user && { userId: call.principal.user.id }),
    address: call.http.address,
  });
  return true;
}
