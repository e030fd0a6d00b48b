// Turns what a request presents into its principal: a bearer token in Authorization (the operator's admin
// token, compared in constant time; a person's API token; an account's dashboard token, both looked up by
// SHA-256 and never cached, so that a revoked one stops at once), or else the session cookie's id.

import { hashApiKey } from "../auth/api-key.js";
import { bearerToken } from "../auth/authenticator.js";
import { GatewayError } from "../core/errors.js";
import type { AccountStore } from "../store/accounts/account-store.js";
import type { ApiTokenStore } from "../store/people/api-token-store.js";
import type { UserRecord } from "../store/people/user-record.js";
import type { UserStore } from "../store/people/user-store.js";
import { API_TOKEN_PREFIX } from "./api-tokens.js";
import { legacyAccount, legacyAdmin, type Principal, sessionPrincipal, tokenPrincipal } from "./principal.js";
import { sameSecret } from "./secrets.js";
import type { Sessions } from "./sessions.js";

export interface CredentialDeps {
  /** The operator's admin token (admin.token), if set. */
  adminToken: string | undefined;
  accounts: AccountStore;
  apiTokens: ApiTokenStore;
  users: UserStore;
  sessions: Sessions;
  now: () => number;
}

export class Credentials {
  constructor(private readonly deps: CredentialDeps) {}

  /** The principal of an Authorization header's bearer token; 401 admin_unauthorized for anything else. */
  async fromBearer(authorization: string | undefined): Promise<Principal> {
    let token: string;
    try {
      token = bearerToken(authorization);
    } catch {
      throw new GatewayError("admin_unauthorized");
    }
    const { adminToken } = this.deps;
    if (adminToken !== undefined && sameSecret(token, adminToken)) return legacyAdmin();
    if (token.startsWith(API_TOKEN_PREFIX)) return this.apiToken(hashApiKey(token));
    const account = await this.deps.accounts.accountOfToken(hashApiKey(token));
    if (!account)
      throw new GatewayError(
        "admin_unauthorized",
        "Unknown token: use an API token, the admin token or an account's dashboard token.",
      );
    return legacyAccount(account.id);
  }

  /** The principal of a session id (the cookie's value); 401 session_expired for one that has ended. */
  async fromSession(id: string): Promise<Principal> {
    const session = await this.deps.sessions.resume(id);
    const user = await this.activeUser(session.userId);
    return sessionPrincipal(session, user, this.deps.users);
  }

  private async apiToken(hash: string): Promise<Principal> {
    const token = await this.deps.apiTokens.byHash(hash);
    if (!token)
      throw new GatewayError("admin_unauthorized", "Unknown API token: it was revoked, or never issued.");
    const now = this.deps.now();
    if (now >= token.expiresAt)
      throw new GatewayError(
        "admin_unauthorized",
        `The API token ${token.name} expired at ${new Date(token.expiresAt).toISOString()}.`,
      );
    const user = await this.activeUser(token.userId);
    await this.deps.apiTokens.touch(token, now);
    return tokenPrincipal(token, user, this.deps.users);
  }

  private async activeUser(userId: string): Promise<UserRecord> {
    const user = await this.deps.users.get(userId);
    if (!user) throw new GatewayError("session_expired", "The person this credential belonged to is gone.");
    if (user.status === "disabled") throw new GatewayError("user_disabled");
    return user;
  }
}
