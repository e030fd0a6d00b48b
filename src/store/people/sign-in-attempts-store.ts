// Failed sign-ins in Redis, per subject (the hash of a case-folded e-mail, or a client address), so that
// every replica counts the same failures. Recording a failure and locking after too many is one script
// (lua/recordSignInFailure-2.lua); reading a lock is one HGET.

import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";

export interface AttemptLimits {
  /** Failures allowed within the window before the subject is locked. */
  limit: number;
  windowMs: number;
  /** The first lock; each lockout after it doubles it. */
  firstLockMs: number;
  longestLockMs: number;
  /** How long lockouts are remembered after the last one. */
  memoryMs: number;
}

export class SignInAttemptsStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** Milliseconds the subject stays locked from `now`; 0 when it is not locked. */
  async lockedFor(subject: string, now: number): Promise<number> {
    const until = await this.redis.hget(this.keys.signInFailures(subject).lock, "locked_until");
    return until === null ? 0 : Math.max(0, Number(until) - now);
  }

  /** Records a failure; returns how long the subject is now locked (0: not locked). */
  async fail(subject: string, now: number, limits: AttemptLimits): Promise<number> {
    const { failures, lock } = this.keys.signInFailures(subject);
    const [lockMs] = await runScript<[number]>(
      this.redis,
      "recordSignInFailure",
      [failures, lock],
      [now, limits.windowMs, limits.limit, limits.firstLockMs, limits.longestLockMs, limits.memoryMs],
    );
    return Number(lockMs);
  }

  /**
   * Forgets the subject's failures and lockouts (a person who signed in, or an operator's unlock); returns
   * whether it had been locked out (its lockouts were remembered).
   */
  async clear(subject: string): Promise<boolean> {
    const { failures, lock } = this.keys.signInFailures(subject);
    const lockouts = await this.redis.hget(lock, "lockouts");
    await this.redis.del(failures, lock);
    return lockouts !== null;
  }
}
