// Accounts in Redis: creation, top-ups and dashboard tokens go through their Lua scripts (every balance
// change does, and each records itself in the audit log); reads are plain hash reads.

import { GatewayError } from "../core/errors.js";
import { formatRubles, MAX_MICROS, type Micros } from "../core/money.js";
import { AUDIT_CAP } from "./audit-store.js";
import { type AccountRecord, parseAccount } from "./records.js";
import type { RedisClient } from "./redis.js";
import type { RedisKeys } from "./redis-keys.js";
import { runScript } from "./scripts.js";

export class AccountStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  async create(
    account: { id: string; name: string; balance: Micros; createdAt: number },
    audit: string,
  ): Promise<void> {
    // Listed first: a crash between the two writes leaves an id in the list whose record is missing,
    // which list() skips, rather than an account nobody can find.
    await this.redis.zadd(this.keys.accounts(), "NX", account.createdAt, account.id);
    const [code] = await runScript(
      this.redis,
      "createAccount",
      [this.keys.account(account.id), this.keys.audit(account.id)],
      [account.id, account.name, account.balance, account.createdAt, audit, AUDIT_CAP],
    );
    if (code === "account_exists") {
      throw new GatewayError("account_exists", `account ${account.id} already exists`);
    }
  }

  /** Adds `amount` to the balance and returns the new balance. */
  async topUp(accountId: string, amount: Micros, audit: string): Promise<Micros> {
    const [code, balance] = await runScript(
      this.redis,
      "topUpAccount",
      [this.keys.account(accountId), this.keys.audit(accountId), this.keys.changes(accountId)],
      [amount, MAX_MICROS, audit, AUDIT_CAP],
    );
    if (code === "account_not_found") throw accountNotFound(accountId);
    if (code === "balance_too_large") {
      throw new GatewayError(
        "invalid_request",
        `top-up refused: the balance of account ${accountId} would exceed ${formatRubles(MAX_MICROS)}, the largest amount the gateway holds`,
      );
    }
    return Number(balance);
  }

  async get(accountId: string): Promise<AccountRecord | null> {
    return parseAccount(await this.redis.hgetall(this.keys.account(accountId)));
  }

  async require(accountId: string): Promise<AccountRecord> {
    const account = await this.get(accountId);
    if (!account) throw accountNotFound(accountId);
    return account;
  }

  async list(): Promise<AccountRecord[]> {
    const ids = await this.redis.zrange(this.keys.accounts(), "0", "-1");
    const accounts = await Promise.all(ids.map((id) => this.get(id)));
    return accounts.filter((account): account is AccountRecord => account !== null);
  }

  /** Gives the account a new dashboard token (by its hash), replacing any previous one. */
  async setToken(accountId: string, hash: string, hint: string, audit: string): Promise<void> {
    const [code, previous] = await runScript(
      this.redis,
      "setAccountToken",
      [this.keys.account(accountId), this.keys.audit(accountId)],
      [hash, hint, audit, AUDIT_CAP],
    );
    if (code === "account_not_found") throw accountNotFound(accountId);
    await this.redis.set(this.keys.accountToken(hash), accountId);
    if (previous) await this.redis.del(this.keys.accountToken(String(previous)));
  }

  /** Revokes the account's dashboard token; returns whether it had one. */
  async revokeToken(accountId: string, audit: string): Promise<boolean> {
    const account = await this.require(accountId);
    if (!account.tokenHash) return false;
    // The lookup goes first, so the token stops working before anything else happens.
    await this.redis.del(this.keys.accountToken(account.tokenHash));
    await runScript(
      this.redis,
      "setAccountToken",
      [this.keys.account(accountId), this.keys.audit(accountId)],
      ["", "", audit, AUDIT_CAP],
    );
    return true;
  }

  /**
   * The account a dashboard token belongs to, or null. The account record must still name the token's
   * hash, so a lookup left behind by a rotation can never let an old token in.
   */
  async accountOfToken(hash: string): Promise<AccountRecord | null> {
    const accountId = await this.redis.get(this.keys.accountToken(hash));
    if (accountId === null) return null;
    const account = await this.get(accountId);
    return account?.tokenHash === hash ? account : null;
  }
}

export function accountNotFound(accountId: string): GatewayError {
  return new GatewayError("account_not_found", `no account with id ${accountId}`);
}
