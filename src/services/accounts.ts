// Account management: create, top up, show, list. Used by the CLI and the admin API alike.

import { type Micros, parsePositiveRubles, parseRubles } from "../billing/money.js";
import { GatewayError } from "../errors.js";
import type { AccountRecord } from "../store/records.js";
import type { ServiceContext } from "./context.js";
import { validateAccountId, validateName } from "./validate.js";

export interface CreateAccountInput {
  id: unknown;
  name?: unknown;
  /** Opening balance in rubles; zero when omitted. */
  balance?: unknown;
}

export class AccountService {
  constructor(private readonly ctx: ServiceContext) {}

  async create(input: CreateAccountInput): Promise<AccountRecord> {
    const id = validateAccountId(input.id);
    const name = input.name === undefined || input.name === null ? id : validateName(input.name);
    const balance =
      input.balance === undefined || input.balance === null ? 0 : rublesInput(input.balance, "balance");
    const account = { id, name, balance, createdAt: this.ctx.now() };
    await this.ctx.accounts.create(account);
    return account;
  }

  /** Adds a positive amount of rubles; returns the account with its new balance. */
  async topUp(accountId: unknown, amount: unknown): Promise<AccountRecord> {
    const id = validateAccountId(accountId);
    const micros = parsePositiveRubles(amountText(amount, "amount"), "amount");
    const account = await this.ctx.accounts.require(id);
    const balance = await this.ctx.accounts.topUp(id, micros);
    return { ...account, balance };
  }

  async show(accountId: unknown): Promise<AccountRecord> {
    return this.ctx.accounts.require(validateAccountId(accountId));
  }

  async list(): Promise<AccountRecord[]> {
    return this.ctx.accounts.list();
  }
}

function rublesInput(value: unknown, what: string): Micros {
  return parseRubles(amountText(value, what), what);
}

/** Amounts arrive as CLI text or JSON numbers; anything else is refused by the money parser with its name. */
export function amountText(value: unknown, what: string): string | number {
  if (typeof value === "string" || typeof value === "number") return value;
  throw new GatewayError(
    "invalid_request",
    `${what} must be an amount in rubles such as 1000 or 12.5; got ${JSON.stringify(value) ?? String(value)}`,
  );
}
