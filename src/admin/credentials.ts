// Who is calling the admin API: the operator (the admin token, every account) or an account (its own
// dashboard token, that account only). Tokens are compared in constant time; account tokens are looked up
// by their SHA-256, like API keys, and never cached, so a revoked token stops working at once.

import { timingSafeEqual } from "node:crypto";
import { hashApiKey } from "../auth/api-key.js";
import { bearerToken } from "../auth/authenticator.js";
import { GatewayError } from "../core/errors.js";
import type { AccountStore } from "../store/account-store.js";
import type { Actor } from "../store/audit-store.js";

export type Principal = { role: "admin" } | { role: "account"; accountId: string };

export class AdminCredentials {
  private readonly adminToken: Buffer;

  constructor(
    adminToken: string,
    private readonly accounts: AccountStore,
  ) {
    this.adminToken = Buffer.from(adminToken);
  }

  async identify(authorization: string | undefined): Promise<Principal> {
    let token: string;
    try {
      token = bearerToken(authorization);
    } catch {
      throw new GatewayError("admin_unauthorized");
    }
    const given = Buffer.from(token);
    if (given.length === this.adminToken.length && timingSafeEqual(given, this.adminToken))
      return { role: "admin" };
    const account = await this.accounts.accountOfToken(hashApiKey(token));
    if (!account)
      throw new GatewayError(
        "admin_unauthorized",
        "Unknown token: use the admin token or an account's dashboard token.",
      );
    return { role: "account", accountId: account.id };
  }
}

export function actorOf(principal: Principal): Actor {
  return principal.role === "admin" ? { kind: "admin" } : { kind: "account", accountId: principal.accountId };
}

/** Refuses an account token on another account's data. */
export function assertMayAccess(principal: Principal, accountId: string): void {
  if (principal.role === "account" && principal.accountId !== accountId) {
    throw new GatewayError(
      "forbidden",
      `This token belongs to account ${principal.accountId} and cannot access account ${accountId}.`,
    );
  }
}

export function assertAdmin(principal: Principal, what: string): void {
  if (principal.role !== "admin")
    throw new GatewayError("forbidden", `Only the operator's admin token may ${what}.`);
}
