// Signing in with an e-mail and a local password, and with a set-password link. A wrong password and an
// unknown e-mail get the same answer after the same work (a dummy hash is verified for an unknown e-mail),
// both counted by the attempt limits; a locked e-mail or address is refused before any password is checked.

import { GatewayError } from "../core/errors.js";
import type { Actor } from "../store/audit-store.js";
import type { UserRecord } from "../store/user-store.js";
import { type Links, linkUrl } from "./links.js";
import { verifyPassword } from "./passwords.js";
import type { SignInAttempts } from "./sign-in-attempts.js";
import { type Users, validateEmail } from "./users.js";

export class PasswordSignIn {
  constructor(
    private readonly users: Users,
    private readonly attempts: SignInAttempts,
    private readonly links: Links,
    private readonly linkMs: number,
    private readonly now: () => number,
  ) {}

  /** The person whose e-mail and password these are; 401 sign_in_failed otherwise, 429 while locked. */
  async signIn(emailInput: unknown, password: unknown, address: string): Promise<UserRecord> {
    const email = validateEmail(emailInput);
    if (typeof password !== "string") throw new GatewayError("invalid_request", "password must be a string");
    await this.attempts.assertAllowed(email, address);
    const user = await this.users.byEmail(email);
    if (!(await verifyPassword(user?.passwordHash ?? null, password)) || !user) {
      await this.attempts.failed(email, address);
      throw new GatewayError("sign_in_failed");
    }
    if (user.status === "disabled") throw new GatewayError("user_disabled");
    await this.attempts.succeeded(email);
    return user;
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
    const link = await this.links.peek(token, "password");
    const user = await this.users.get(link.userId);
    if (!user) throw new GatewayError("password_link_invalid");
    if (user.status === "disabled") throw new GatewayError("user_disabled");
    const actor: Actor = { kind: "user", userId: user.id, name: user.name, via: "password" };
    await this.users.checkPassword(password);
    await this.links.take(token as string, "password");
    await this.users.setPassword(user.id, password, actor);
    return user;
  }
}
