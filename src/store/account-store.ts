// Accounts in Redis: creation and top-up go through their Lua scripts (every balance change does); reads
// are plain hash reads.

import { MAX_MICROS, type Micros } from "../billing/money.js";
import { GatewayError } from "../errors.js";
import { type AccountRecord, parseAccount } from "./records.js";
import type { RedisKeys } from "./redis-keys.js";
import { type RedisClient, runScript } from "./scripts.js";

export class AccountStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  async create(account: { id: string; name: string; balance: Micros; createdAt: number }): Promise<void> {
    // Listed first: a crash between the two writes leaves an id in the list whose record is missing,
    // which list() skips, rather than an account nobody can find.
    await this.redis.zadd(this.keys.accounts(), "NX", account.createdAt, account.id);
    const [code] = await runScript(
      this.redis,
      "createAccount",
      [this.keys.account(account.id)],
      [account.id, account.name, account.balance, account.createdAt],
    );
    if (code === "account_exists") {
      throw new GatewayError("account_exists", `account ${account.id} already exists`);
    }
  }

  /** Adds `amount` to the balance and returns the new balance. */
  async topUp(accountId: string, amount: Micros): Promise<Micros> {
    const [code, balance] = await runScript(
      this.redis,
      "topUpAccount",
      [this.keys.account(accountId)],
      [amount, MAX_MICROS],
    );
    if (code === "account_not_found") throw accountNotFound(accountId);
    if (code === "balance_too_large") {
      throw new GatewayError(
        "invalid_request",
        `top-up refused: the balance of account ${accountId} would exceed the largest amount the gateway holds (999999999.999999)`,
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
}

export function accountNotFound(accountId: string): GatewayError {
  return new GatewayError("account_not_found", `no account with id ${accountId}`);
}
