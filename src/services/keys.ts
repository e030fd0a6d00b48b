// API key management: create (the only time a key value exists outside the caller's hands), list, show,
// revoke. Used by the CLI and the admin API alike, so both apply the same rules.

import { generateApiKey, generateKeyId, hashApiKey, keyHint } from "../auth/api-key.js";
import { parsePositiveRubles } from "../billing/money.js";
import { isPeriod, type Period } from "../billing/periods.js";
import { GatewayError } from "../errors.js";
import type { KeyRecord } from "../store/records.js";
import { amountText } from "./accounts.js";
import type { ServiceContext } from "./context.js";
import { parseLifetime } from "./lifetime.js";
import { validateAccountId, validateKeyId, validateModels, validateName } from "./validate.js";

export interface CreateKeyInput {
  accountId: unknown;
  name: unknown;
  /** Rubles per period; no budget when omitted. */
  budget?: unknown;
  /** day | week | month; month when a budget is given without one. */
  period?: unknown;
  /** A duration such as 30d, or "never" (the default). */
  ttl?: unknown;
  /** Allowed models; all models when omitted. */
  models?: unknown;
  /** Whether request and response bodies may be logged; on by default. */
  logBodies?: unknown;
}

export interface CreatedKey {
  record: KeyRecord;
  /** The key value: returned here once and never stored. */
  value: string;
}

export class KeyService {
  constructor(private readonly ctx: ServiceContext) {}

  async create(input: CreateKeyInput): Promise<CreatedKey> {
    const accountId = validateAccountId(input.accountId);
    const name = validateName(input.name);
    const budget = present(input.budget)
      ? parsePositiveRubles(amountText(input.budget, "budget"), "budget")
      : null;
    const period = parsePeriod(input.period, budget !== null);
    const lifetime = present(input.ttl) ? lifetimeInput(input.ttl) : null;
    const allowedModels = present(input.models) ? validateModels(input.models) : null;
    if (input.logBodies !== undefined && typeof input.logBodies !== "boolean") {
      throw new GatewayError("invalid_request", "log_bodies must be true or false");
    }
    const logBodies = input.logBodies !== false;

    const now = this.ctx.now();
    const value = generateApiKey();
    const record: KeyRecord = {
      id: generateKeyId(),
      accountId,
      name,
      hint: keyHint(value),
      createdAt: now,
      expiresAt: lifetime === null ? null : now + lifetime,
      budget,
      period,
      spent: 0,
      periodStart: this.ctx.calendar.at(now)[period].start,
      allowedModels,
      logBodies,
      revokedAt: null,
    };
    await this.ctx.keys.create({ ...record, hash: hashApiKey(value) });
    return { record, value };
  }

  async list(accountId: unknown): Promise<KeyRecord[]> {
    const id = validateAccountId(accountId);
    await this.ctx.accounts.require(id);
    return this.ctx.keys.list(id);
  }

  async show(keyId: unknown): Promise<KeyRecord> {
    return this.ctx.keys.requireById(validateKeyId(keyId));
  }

  async revoke(keyId: unknown): Promise<{ record: KeyRecord; alreadyRevoked: boolean }> {
    const key = await this.show(keyId);
    const { revokedAt, alreadyRevoked } = await this.ctx.keys.revoke(
      { accountId: key.accountId, keyId: key.id },
      this.ctx.now(),
    );
    return { record: { ...key, revokedAt }, alreadyRevoked };
  }
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function parsePeriod(value: unknown, hasBudget: boolean): Period {
  if (!present(value)) return "month";
  if (!hasBudget)
    throw new GatewayError("invalid_request", "period is only meaningful with a budget; give both");
  if (!isPeriod(value)) {
    throw new GatewayError(
      "invalid_request",
      `period must be day, week or month; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function lifetimeInput(value: unknown): number | null {
  if (typeof value !== "string") {
    throw new GatewayError(
      "invalid_request",
      `ttl must be a duration such as 30d, or "never"; got ${JSON.stringify(value)}`,
    );
  }
  return parseLifetime(value);
}
