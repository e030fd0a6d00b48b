// Signing in with an e-mail and a local password, and with a set-password link. A wrong password and an
// unknown e-mail get the same answer after the same work (a dummy hash is verified for an unknown e-mail),
// both counted by the attempt limits; a locked e-mail or address is refused before any password is checked.
// Every outcome is an identity event (core/identity-events.ts); a known person's failed tries and lockouts are
// in their audit log too, and an unknown e-mail's only in the log line, as there is nobody's log to put them
// in. Tries refused while locked are not audited: they are not counted either, and would let anyone flood a
// person's log.

import type { IdentityEvents } from "../core/channels.js";
import { GatewayError, redisRefusal } from "../core/errors.js";
import type { Actor } from "../store/audit/audit-store.js";
import type { UserRecord } from "../store/people/user-record.js";
import { type Links, linkUrl } from "./links.js";
import { verifyPassword } from "./passwords.js";
import type { SignInAttempts } from "./sign-in-attempts.js";
import { type Users, validateEmail } from "./users.js";

/** Why a password is being checked: to sign in, or to confirm a person's current one before a change. */
export type PasswordPurpose = "sign_in.password" | "password.change";

const ANONYMOUS: Actor = { kind: "anonymous" };

export class PasswordSignIn {
  constructor(
    private readonly users: Users,
    private readonly attempts: SignInAttempts,
    private readonly links: Links,
    private readonly linkMs: number,
    private readonly now: () => number,
    private readonly events: IdentityEvents,
  ) {}

  /**
   * The person whose e-mail and password these are; 401 sign_in_failed otherwise, 429 while locked. The
   * success of a sign-in is reported where its session starts; a confirmation's failures as password.change.
   */
  async signIn(
    emailInput: unknown,
    password: unknown,
    address: string,
    purpose: PasswordPurpose = "sign_in.password",
  ): Promise<UserRecord> {
    const email = validateEmail(emailInput);
    if (typeof password !== "string") throw new GatewayError("invalid_request", "password must be a string");
    try {
      await this.attempts.assertAllowed(email, address);
    } catch (error) {
      this.events.publish(purpose, "locked", { email, address });
      throw error;
    }
    const user = await this.users.byEmail(email);
    if (!(await verifyPassword(user?.passwordHash ?? null, password)) || !user) {
      await this.failed(email, address, user, purpose);
      throw new GatewayError("sign_in_failed");
    }
    if (user.status === "disabled") {
      if (purpose === "sign_in.password")
        this.events.publish(purpose, "user_disabled", { userId: user.id, address });
      await this.users.record(user.id, ANONYMOUS, "user.sign_in_failed", {
        reason: "user_disabled",
        address,
      });
      throw new GatewayError("user_disabled");
    }
    if (await this.attempts.succeeded(email)) {
      this.events.publish("unlock", "signed_in", { userId: user.id, address });
      await this.users.record(
        user.id,
        { kind: "user", userId: user.id, name: user.name, via: "password" },
        "user.unlock",
        {
          reason: "signed_in",
        },
      );
    }
    return user;
  }

  /** Counts a failed try, and reports it and any lockout it caused. */
  private async failed(
    email: string,
    address: string,
    user: UserRecord | null,
    purpose: PasswordPurpose,
  ): Promise<void> {
    const locks = await this.attempts.failed(email, address);
    const who = user ? { userId: user.id } : { email };
    if (purpose === "password.change") this.events.publish(purpose, "wrong_password", { ...who, address });
    else this.events.publish(purpose, user ? "wrong_password" : "unknown_user", { ...who, address });
    if (user)
      await this.users.record(user.id, ANONYMOUS, "user.sign_in_failed", {
        reason: "wrong_password",
        address,
      });
    if (locks.email > 0) {
      this.events.publish("lockout", "email", {
        ...who,
        address,
        detail: `${Math.ceil(locks.email / 1000)} s`,
      });
      if (user)
        await this.users.record(user.id, ANONYMOUS, "user.lockout", {
          seconds: Math.ceil(locks.email / 1000),
          address,
        });
    }
    if (locks.address > 0)
      this.events.publish("lockout", "address", { address, detail: `${Math.ceil(locks.address / 1000)} s` });
  }

  /**
   * Lifts the lock on a person's e-mail (an operator's `users unlock`): their failures and lockouts are
   * forgotten; returns whether it had been locked out.
   */
  async unlock(user: UserRecord, actor: Actor): Promise<boolean> {
    const unlocked = await this.attempts.succeeded(user.email);
    if (unlocked) {
      this.events.publish("unlock", "operator", { userId: user.id });
      await this.users.record(user.id, actor, "user.unlock", { reason: "operator" });
    }
    return unlocked;
  }

  /** A one-time link for a person to set their password (`users create`, `users reset-password`). */
  async passwordLink(userId: string, base: string): Promise<string> {
    const { token } = await this.links.issue({
      kind: "password",
      userId,
      expiresAt: this.now() + this.linkMs,
    });
    return linkUrl(base, "password", token);
  }

  /** Sets the password a link is for; the link is taken once the password has passed the rules. */
  async usePasswordLink(token: unknown, password: unknown): Promise<UserRecord> {
    let link: Awaited<ReturnType<Links["peek"]>>;
    try {
      link = await this.links.peek(token, "password");
    } catch (error) {
      this.events.publish("password.link", "invalid_link");
      throw error;
    }
    const user = await this.users.get(link.userId);
    if (!user) {
      this.events.publish("password.link", "invalid_link");
      throw new GatewayError("password_link_invalid");
    }
    if (user.status === "disabled") {
      this.events.publish("password.link", "user_disabled", { userId: user.id });
      throw new GatewayError("user_disabled");
    }
    const actor: Actor = { kind: "user", userId: user.id, name: user.name, via: "password" };
    try {
      await this.users.checkPassword(password);
    } catch (error) {
      this.events.publish("password.link", "weak_password", { userId: user.id });
      throw error;
    }
    try {
      await this.links.take(token as string, "password");
    } catch (error) {
      this.events.publish("password.link", "invalid_link", { userId: user.id });
      throw error;
    }
    try {
      await this.users.setPassword(user.id, password, actor);
    } catch (error) {
      // Redis refused the new password: the link was not used, so it works again.
      await this.links.giveBack(token as string, link);
      throw redisRefusal(error, `to set the password of ${user.email}`);
    }
    this.events.publish("password.link", "success", { userId: user.id });
    return user;
  }
}
