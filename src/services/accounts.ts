// Account management: create, top up, show, list, dashboard tokens, audit log. Used by the CLI and the
// admin API alike; every change names its actor, and the scripts record it in the audit log.

import { generateAccountToken, hashApiKey, keyHint } from "../auth/api-key.js";
import { GatewayError } from "../core/errors.js";
import { formatRubles, type Micros, parsePositiveRubles, parseRubles } from "../core/money.js";
import { validateAccountId, validateName } from "../core/validate.js";
import type { AuditEntry, UserAuditEntry } from "../store/audit/audit-schema.js";
import { type Actor, auditEntry } from "../store/audit/audit-store.js";
import type { AccountRecord } from "../store/records.js";
import type { Stores } from "../store/stores.js";

export interface CreateAccountInput {
  id: unknown;
  name?: unknown;
  /** Opening balance in rubles; zero when omitted. */
  balance?: unknown;
}

export const MAX_AUDIT_READ = 1000;

/** The stores AccountService reads and writes. */
export type AccountStores = Pick<Stores, "accounts" | "audit" | "now">;

export class AccountService {
  constructor(private readonly stores: AccountStores) {}

  async create(input: CreateAccountInput, actor: Actor): Promise<AccountRecord> {
    const id = validateAccountId(input.id);
    const name = input.name === undefined || input.name === null ? id : validateName(input.name);
    const balance =
      input.balance === undefined || input.balance === null ? 0 : rublesInput(input.balance, "balance");
    const now = this.stores.now();
    const account: AccountRecord = {
      id,
      name,
      balance,
      createdAt: now,
      billing: "prepaid",
      budgets: [],
      alertAt: null,
    };
    const audit = auditEntry(actor, now, "account.create", id, { name, balance: formatRubles(balance) });
    await this.stores.accounts.create(account, audit);
    return account;
  }

  /** Adds a positive amount of rubles; returns the account with its new balance. */
  async topUp(accountId: unknown, amount: unknown, actor: Actor): Promise<AccountRecord> {
    const id = validateAccountId(accountId);
    const micros = parsePositiveRubles(amountText(amount, "amount"), "amount");
    const account = await this.stores.accounts.require(id);
    const audit = auditEntry(actor, this.stores.now(), "account.topup", id, { amount: formatRubles(micros) });
    const balance = await this.stores.accounts.topUp(id, micros, audit);
    return { ...account, balance };
  }

  async show(accountId: unknown): Promise<AccountRecord> {
    return this.stores.accounts.require(validateAccountId(accountId));
  }

  /** The account, or null when it does not exist (any more). */
  async find(accountId: string): Promise<AccountRecord | null> {
    return this.stores.accounts.get(accountId);
  }

  async list(): Promise<AccountRecord[]> {
    return this.stores.accounts.list();
  }

  /** Issues the account's dashboard token, replacing any previous one; the value is returned only here. */
  async createToken(accountId: unknown, actor: Actor): Promise<{ account: AccountRecord; token: string }> {
    const id = validateAccountId(accountId);
    await this.stores.accounts.require(id);
    const token = generateAccountToken();
    const hint = keyHint(token);
    const audit = auditEntry(actor, this.stores.now(), "account.token.create", id, { hint });
    await this.stores.accounts.setToken(id, hashApiKey(token), hint, audit);
    return { account: await this.stores.accounts.require(id), token };
  }

  /** Revokes the account's dashboard token; returns whether there was one. */
  async revokeToken(accountId: unknown, actor: Actor): Promise<boolean> {
    const id = validateAccountId(accountId);
    const audit = auditEntry(actor, this.stores.now(), "account.token.revoke", id, {});
    return this.stores.accounts.revokeToken(id, audit);
  }

  /** The account's audit log, newest first. */
  async audit(accountId: unknown, limit: number): Promise<AuditEntry[]> {
    const id = validateAccountId(accountId);
    await this.stores.accounts.require(id);
    return this.stores.audit.list(id, readLimit(limit));
  }

  /** Every account's audit log merged, newest first. */
  async auditAll(limit: number): Promise<AuditEntry[]> {
    const ids = (await this.stores.accounts.list()).map((account) => account.id);
    return this.stores.audit.listAll(ids, readLimit(limit));
  }

  /** The people's audit logs merged, newest first. */
  async usersAudit(userIds: readonly string[], limit: number): Promise<UserAuditEntry[]> {
    return this.stores.audit.listUsers(userIds, readLimit(limit));
  }
}

function rublesInput(value: unknown, what: string): Micros {
  return parseRubles(amountText(value, what), what);
}

/** Amounts arrive as CLI text or JSON numbers; anything else is refused, naming the field. */
export function amountText(value: unknown, what: string): string | number {
  if (typeof value === "string" || typeof value === "number") return value;
  throw new GatewayError(
    "invalid_request",
    `${what} must be an amount in rubles such as 1000 or 12.5; got ${JSON.stringify(value) ?? String(value)}`,
  );
}

/** How many entries to read: 1 to MAX_AUDIT_READ (a store asked for 0 would read them all). */
function readLimit(limit: number): number {
  return Math.min(Math.max(1, Math.floor(limit)), MAX_AUDIT_READ);
}
