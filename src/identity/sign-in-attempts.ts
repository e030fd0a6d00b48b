// Limits password sign-ins, per e-mail and per client address, on every replica alike: after
// signIn.attempts.maxFailures failures within the window the subject is locked, and tries are refused with
// 429 too_many_attempts and Retry-After (never by holding the connection) until the lock ends; each lockout
// doubles the next. An unknown e-mail is counted exactly like a known one, so the limit tells nothing.

import { GatewayError } from "../core/errors.js";
import type { AttemptLimits, SignInAttemptsStore } from "../store/people/sign-in-attempts-store.js";
import { sha256 } from "./secrets.js";

export class SignInAttempts {
  constructor(
    private readonly store: SignInAttemptsStore,
    private readonly limits: AttemptLimits,
    private readonly now: () => number,
  ) {}

  /** Refuses a try while the e-mail or the address is locked. */
  async assertAllowed(email: string, address: string): Promise<void> {
    const now = this.now();
    const waits = await Promise.all(
      subjects(email, address).map((subject) => this.store.lockedFor(subject, now)),
    );
    const wait = Math.max(...waits);
    if (wait > 0) throw tooMany(wait);
  }

  /**
   * Counts a failed try against both; returns how long each is now locked (0: not locked), the e-mail's and
   * the address's, for the lockouts to be reported.
   */
  async failed(email: string, address: string): Promise<{ email: number; address: number }> {
    const now = this.now();
    const [byEmail = 0, byAddress = 0] = await Promise.all(
      subjects(email, address).map((subject) => this.store.fail(subject, now, this.limits)),
    );
    return { email: byEmail, address: byAddress };
  }

  /**
   * Forgets the e-mail's failures and lockouts — its owner signed in, or an operator lifted the lock (the
   * address keeps its count); returns whether the e-mail had been locked out.
   */
  async succeeded(email: string): Promise<boolean> {
    return this.store.clear(emailSubject(email));
  }
}

function emailSubject(email: string): string {
  return `e:${sha256(email)}`;
}

function subjects(email: string, address: string): string[] {
  return [emailSubject(email), `ip:${address}`];
}

function tooMany(waitMs: number): GatewayError {
  return new GatewayError(
    "too_many_attempts",
    `Too many failed sign-ins: try again in ${Math.ceil(waitMs / 1000)} seconds.`,
    { retryAfterMs: waitMs },
  );
}
