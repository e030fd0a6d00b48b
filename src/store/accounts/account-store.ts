// Accounts in Redis: creation, top-ups and dashboard tokens go through their Lua scripts (every balance
// change does, and each records itself in the audit log); reads are plain hash reads.

import type { BillingMode } from "../../core/budget-windows.js";
import { GatewayError } from "../../core/errors.js";
import { formatRubles, MAX_MICROS, type Micros } from "../../core/money.js";
import { AUDIT_CAP } from "../audit/audit-store.js";
import type { RedisClient } from "../connection/redis.js";
import { type AccountRecord, parseAccount, type WindowWrite } from "../records.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";

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
   * What the account's keys were charged on `days` (YYYY-MM-DD, billing time zone) by their daily usage
   * counters, day by day, with the account's count of requests in `month` (YYYY-MM) as stored ("" when
   * none): read at one instant (MULTI), the basis on which new account windows get their spent amounts and
   * what setBudgets checks against. The list of keys is read again in the same instant; a key created in
   * between makes it read once more.
   */
  async budgetSpending(
    accountId: string,
    days: readonly string[],
    month: string,
  ): Promise<{ requests: string; dayCosts: Micros[] }> {
    let keyIds = await this.redis.zrange(this.keys.accountKeys(accountId), "0", "-1");
    for (;;) {
      const transaction = this.redis
        .multi()
        .zrange(this.keys.accountKeys(accountId), "0", "-1")
        .hget(this.keys.month(accountId, month), "requests");
      for (const day of days) {
        for (const keyId of keyIds) transaction.hget(this.keys.usage(accountId, keyId, day), "cost");
      }
      const results = (await transaction.exec()) ?? [];
      for (const [error] of results) if (error) throw error;
      const listed = (results[0]?.[1] ?? []) as string[];
      if (listed.join(" ") !== keyIds.join(" ")) {
        keyIds = listed;
        continue;
      }
      const costs = results.slice(2).map(([, value]) => Number(value ?? 0));
      const dayCosts = days.map((_, d) =>
        costs.slice(d * keyIds.length, (d + 1) * keyIds.length).reduce((sum, cost) => sum + cost, 0),
      );
      return { requests: (results[1]?.[1] as string | null) ?? "", dayCosts };
    }
  }

  /**
   * Sets the account's billing mode, windows and their alert thresholds ("keep" leaves them), if its month
   * requests count is still `requests` (from budgetSpending); otherwise nothing changes and the answer is
   * "conflict", for the caller to read again and retry.
   */
  async setBudgets(
    accountId: string,
    change: {
      billing: BillingMode;
      windows: WindowWrite[];
      alertAt: string;
      month: string;
      requests: string;
    },
    audit: string,
  ): Promise<"ok" | "conflict"> {
    const [code] = await runScript(
      this.redis,
      "setAccountBudgets",
      [
        this.keys.account(accountId),
        this.keys.audit(accountId),
        this.keys.month(accountId, change.month),
        this.keys.changes(accountId),
      ],
      [change.billing, JSON.stringify(change.windows), change.alertAt, change.requests, audit, AUDIT_CAP],
    );
    if (code === "account_not_found") throw accountNotFound(accountId);
    return code === "conflict" ? "conflict" : "ok";
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
