// Sessions of signed-in people: an opaque random id (256 bits) handed to the browser in a cookie, the
// session itself kept in Redis under the id's SHA-256. A session ends when signed out or revoked, after
// signIn.sessions.idleMinutes without a request (each request slides it), or signIn.sessions.absoluteHours
// after it began, whatever happens. Roles are never kept in a session: they are read at every request.

import { createHash } from "node:crypto";
import { GatewayError } from "../core/errors.js";
import type { SignInMethod } from "../store/audit/audit-store.js";
import type { SessionRecord, SessionStore } from "../store/people/session-store.js";
import { newSecret, sha256 } from "./secrets.js";

export interface SessionClient {
  userAgent: string;
  address: string;
}

export interface SessionTimeouts {
  idleMs: number;
  absoluteMs: number;
}

/** A live session, with the CSRF token its state-changing calls must echo. */
export interface LiveSession extends SessionRecord {
  csrfToken: string;
}

/**
 * The session's CSRF token, derived from its id rather than stored: Redis never holds it, and only whoever
 * holds the id (the browser, by its cookie) can be told it.
 */
function csrfTokenOf(id: string): string {
  return createHash("sha256").update(`csrf:${id}`).digest("base64url");
}

/**
 * A session's handle in the admin API (its id in `/me`, in the list of sessions, in the path that revokes
 * it): derived one way from the hash Redis keeps, so that the API shows neither the session id (the
 * credential) nor the hash (its name in Redis), and needs nothing stored besides.
 */
export function sessionHandle(hash: string): string {
  return `ses_${sha256(`session-handle:${hash}`).slice(0, 32)}`;
}

/** Longest user agent kept with a session: enough to recognise a browser, never a whole header. */
const MAX_USER_AGENT = 256;

export class Sessions {
  constructor(
    private readonly store: SessionStore,
    private readonly timeouts: SessionTimeouts,
    private readonly now: () => number,
  ) {}

  /** Starts a session; its id (the cookie's value) is returned here and never kept. */
  async start(
    userId: string,
    method: SignInMethod,
    client: SessionClient,
  ): Promise<{ id: string; session: LiveSession }> {
    const id = newSecret();
    const now = this.now();
    const session: SessionRecord = {
      hash: sha256(id),
      userId,
      via: method.via,
      provider: method.via === "oidc" ? method.provider : null,
      createdAt: now,
      lastSeenAt: now,
      userAgent: client.userAgent.slice(0, MAX_USER_AGENT),
      address: client.address,
    };
    await this.store.create(session, this.timeouts.absoluteMs);
    return { id, session: { ...session, csrfToken: csrfTokenOf(id) } };
  }

  /**
   * The live session an id names, its idle timeout slid forward; refuses an unknown, ended or timed-out one
   * with 401 session_expired (a timed-out session is deleted on the way).
   */
  async resume(id: string): Promise<LiveSession> {
    const session = await this.store.get(sha256(id));
    if (!session) throw new GatewayError("session_expired");
    const now = this.now();
    if (
      now - session.lastSeenAt >= this.timeouts.idleMs ||
      now - session.createdAt >= this.timeouts.absoluteMs
    ) {
      await this.store.delete(session.userId, session.hash);
      throw new GatewayError("session_expired");
    }
    await this.store.touch(session.hash, now);
    return { ...session, lastSeenAt: now, csrfToken: csrfTokenOf(id) };
  }

  /** Ends the session an id names (signing out); nothing happens for an unknown one. */
  async end(id: string): Promise<void> {
    const session = await this.store.get(sha256(id));
    if (session) await this.store.delete(session.userId, session.hash);
  }

  /** A person's live sessions, oldest first. */
  async list(userId: string): Promise<SessionRecord[]> {
    const now = this.now();
    return (await this.store.list(userId)).filter(
      (s) => now - s.lastSeenAt < this.timeouts.idleMs && now - s.createdAt < this.timeouts.absoluteMs,
    );
  }

  /** Revokes one of a person's sessions by its handle (sessionHandle); refuses a handle that is not theirs. */
  async revoke(userId: string, handle: string): Promise<void> {
    const session = (await this.store.list(userId)).find((s) => sessionHandle(s.hash) === handle);
    if (!session || !(await this.store.delete(userId, session.hash)))
      throw new GatewayError("session_not_found", `no session ${handle} of this person`);
  }

  /**
   * Revokes every session of a person but one (by its hash): a password change ends the others. Returns
   * how many it ended.
   */
  async revokeOthers(userId: string, keepHash: string | null): Promise<number> {
    let ended = 0;
    for (const session of await this.store.list(userId))
      if (session.hash !== keepHash && (await this.store.delete(userId, session.hash))) ended++;
    return ended;
  }

  /** Ends every session of a person signed in through one provider (it no longer vouches for them). */
  async revokeProvider(userId: string, providerId: string): Promise<number> {
    let ended = 0;
    for (const session of await this.store.list(userId))
      if (
        session.via === "oidc" &&
        session.provider === providerId &&
        (await this.store.delete(userId, session.hash))
      )
        ended++;
    return ended;
  }

  /** Revokes every session of a person (signing out everywhere, or a person disabled); returns how many. */
  async revokeAll(userId: string): Promise<number> {
    return this.store.deleteAll(userId);
  }
}
