// API keys in Redis. A key is found by the SHA-256 of its value through a single-key mapping that never
// changes once written (so the gateway may cache it); everything that can change — revocation, budget,
// spent amount — lives in the key record, which is read on every request.

import { GatewayError } from "../../core/errors.js";
import type { KeyRef } from "../../core/key-ref.js";
import { formatRubles, type Micros } from "../../core/money.js";
import type { CurrentPeriods, Period } from "../../core/periods.js";
import { accountNotFound } from "../accounts/account-store.js";
import type { EventStore } from "../accounts/event-store.js";
import { AUDIT_CAP } from "../audit/audit-store.js";
import type { RedisClient } from "../connection/redis.js";
import { type RedisObserver, timed } from "../connection/timing.js";
import {
  type AccountRecord,
  type KeyLimits,
  type KeyRecord,
  parseAccount,
  parseKey,
  type WindowWrite,
} from "../records.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";
import type { KeyChanges, PeriodSpending } from "./key-changes.js";

export interface NewKey {
  id: string;
  accountId: string;
  name: string;
  hint: string;
  hash: string;
  createdAt: number;
  expiresAt: number | null;
  budget: Micros | null;
  period: Period;
  periodStart: number;
  allowedModels: string[] | null;
  logBodies: boolean;
  limits: KeyLimits;
  /** Budget alert thresholds in percent: null for the configured defaults, [] for none. */
  alertAt: number[] | null;
  /** Every budget window (the first is budget/period's), as written. */
  windows: WindowWrite[];
  /** The current periods, for the check that none of the account's windows is used up. */
  periods: CurrentPeriods;
}

export class KeyStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly events: EventStore,
    private readonly observe?: RedisObserver,
  ) {}

  async create(key: NewKey, audit: string): Promise<void> {
    const [code, balance] = await runScript(
      this.redis,
      "createKey",
      [
        this.keys.account(key.accountId),
        this.keys.key(key.accountId, key.id),
        this.keys.accountKeys(key.accountId),
        this.keys.audit(key.accountId),
        this.keys.events(key.accountId),
        this.keys.eventsDue(key.accountId),
      ],
      [
        key.createdAt,
        key.id,
        key.accountId,
        key.name,
        key.hint,
        key.expiresAt ?? "",
        key.budget ?? "",
        key.period,
        key.periodStart,
        key.allowedModels ? JSON.stringify(key.allowedModels) : "",
        key.logBodies ? "1" : "0",
        audit,
        AUDIT_CAP,
        key.alertAt === null ? "default" : key.alertAt.join(","),
        this.events.context(key.createdAt),
        key.hash,
        JSON.stringify(limitFields(key.limits)),
        JSON.stringify(key.windows),
        JSON.stringify({
          day: String(key.periods.day.start),
          week: String(key.periods.week.start),
          month: String(key.periods.month.start),
        }),
      ],
    );
    if (code === "account_not_found") throw accountNotFound(key.accountId);
    if (code === "insufficient_balance") {
      throw new GatewayError(
        "insufficient_balance",
        `cannot create a key for account ${key.accountId}: its balance is not positive (${formatRubles(Number(balance))} RUB); top it up first`,
      );
    }
    if (code === "budget_exceeded") {
      throw new GatewayError(
        "budget_exceeded",
        `cannot create a key for account ${key.accountId}: its ${String(balance)} budget is used up until the period resets`,
        { fields: { window: { scope: "account", period: String(balance) } } },
      );
    }
    if (code === "key_exists") throw new GatewayError("internal_error", "key id collision; try again");
    // The lookups are written once the record exists, so that a refused creation writes nothing at all.
    await Promise.all([
      this.redis.set(this.keys.keyHash(key.hash), `${key.accountId}:${key.id}`, "NX"),
      this.redis.set(this.keys.keyAccount(key.id), key.accountId, "NX"),
      this.events.hintWork(key.accountId, key.createdAt),
    ]);
  }

  /** The key a hash belongs to, or null when no key has that hash. */
  async lookup(hash: string): Promise<KeyRef | null> {
    const value = await timed(this.observe, "lookup", () => this.redis.get(this.keys.keyHash(hash)));
    if (value === null) return null;
    const separator = value.indexOf(":");
    return { accountId: value.slice(0, separator), keyId: value.slice(separator + 1) };
  }

  async get(ref: KeyRef): Promise<KeyRecord | null> {
    return parseKey(await this.redis.hgetall(this.keys.key(ref.accountId, ref.keyId)));
  }

  /** The key record and its account's record, read in one round trip. */
  async getWithAccount(ref: KeyRef): Promise<{ key: KeyRecord | null; account: AccountRecord | null }> {
    const results = await timed(this.observe, "read_key", () =>
      this.redis
        .pipeline()
        .hgetall(this.keys.key(ref.accountId, ref.keyId))
        .hgetall(this.keys.account(ref.accountId))
        .exec(),
    );
    const [keyResult, accountResult] = results ?? [];
    if (keyResult?.[0]) throw keyResult[0];
    if (accountResult?.[0]) throw accountResult[0];
    return {
      key: parseKey(keyResult?.[1] as Record<string, string>),
      account: parseAccount(accountResult?.[1] as Record<string, string>),
    };
  }

  /** Finds a key by its id alone (as the CLI and the admin API name keys). */
  async findById(keyId: string): Promise<KeyRecord | null> {
    const accountId = await this.redis.get(this.keys.keyAccount(keyId));
    return accountId === null ? null : this.get({ accountId, keyId });
  }

  async requireById(keyId: string): Promise<KeyRecord> {
    const key = await this.findById(keyId);
    if (!key) throw new GatewayError("key_not_found", `no key with id ${keyId}`);
    return key;
  }

  /** The account's keys, oldest first. */
  async list(accountId: string): Promise<KeyRecord[]> {
    const ids = await this.redis.zrange(this.keys.accountKeys(accountId), "0", "-1");
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.key(accountId, id));
    const results = (await pipeline.exec()) ?? [];
    const keys: KeyRecord[] = [];
    for (const [error, hash] of results) {
      if (error) throw error;
      const key = parseKey(hash as Record<string, string>);
      if (key) keys.push(key);
    }
    return keys;
  }

  /** Revokes a key; returns when it was revoked (the first time, if it already was) and whether it already was. */
  async revoke(
    ref: KeyRef,
    now: number,
    audit: string,
  ): Promise<{ revokedAt: number; alreadyRevoked: boolean }> {
    const [code, revokedAt] = await runScript(
      this.redis,
      "revokeKey",
      [
        this.keys.key(ref.accountId, ref.keyId),
        this.keys.audit(ref.accountId),
        this.keys.events(ref.accountId),
        this.keys.changes(ref.accountId),
      ],
      [now, audit, AUDIT_CAP, this.events.context(now)],
    );
    if (code === "key_not_found") throw new GatewayError("key_not_found", `no key with id ${ref.keyId}`);
    if (code === "ok") await this.events.hintWork(ref.accountId, now);
    return { revokedAt: Number(revokedAt), alreadyRevoked: code === "already_revoked" };
  }

  /**
   * Gives the key a new value (by its hash and hint); the old one keeps working until `previousUntil`. The
   * new value's lookup is written first: until the record names it, a request presenting it is refused as
   * rotated, so no moment exists at which the new value points nowhere. A refused rotation removes it again.
   */
  async rotate(
    ref: KeyRef,
    value: { hash: string; hint: string },
    previousUntil: number,
    audit: string,
  ): Promise<void> {
    const lookup = this.keys.keyHash(value.hash);
    if ((await this.redis.set(lookup, `${ref.accountId}:${ref.keyId}`, "NX")) === null)
      throw new GatewayError("internal_error", "key value collision; try again");
    // Should the script fail, whether it ran is unknown; the lookup then stays, harmless either way.
    const now = this.events.now();
    const [code] = await runScript(
      this.redis,
      "rotateKey",
      [
        this.keys.key(ref.accountId, ref.keyId),
        this.keys.audit(ref.accountId),
        this.keys.events(ref.accountId),
        this.keys.changes(ref.accountId),
      ],
      [value.hash, value.hint, previousUntil, audit, AUDIT_CAP, this.events.context(now)],
    );
    if (code === "ok") return this.events.hintWork(ref.accountId, now);
    await this.redis.del(lookup);
    if (code === "key_not_found") throw new GatewayError("key_not_found", `no key with id ${ref.keyId}`);
    throw revokedKey(ref.keyId);
  }

  /** Disables the key (at `disabledAt`) or, with null, enables it; returns whether anything changed. */
  async setDisabled(ref: KeyRef, disabledAt: number | null, audit: string): Promise<boolean> {
    const now = this.events.now();
    const [code, changed] = await runScript(
      this.redis,
      "setKeyDisabled",
      [
        this.keys.key(ref.accountId, ref.keyId),
        this.keys.audit(ref.accountId),
        this.keys.events(ref.accountId),
        this.keys.changes(ref.accountId),
      ],
      [disabledAt ?? "", audit, AUDIT_CAP, this.events.context(now)],
    );
    if (code === "key_not_found") throw new GatewayError("key_not_found", `no key with id ${ref.keyId}`);
    if (code === "key_revoked") throw revokedKey(ref.keyId);
    if (Number(changed) === 1) await this.events.hintWork(ref.accountId, now);
    return Number(changed) === 1;
  }

  /**
   * The key's spent amount and period start exactly as stored, and what it was charged on `days` (YYYY-MM-DD,
   * billing time zone) by its daily usage counters, all read at one instant (MULTI): the basis on which a
   * period change computes the new period's spent amount, and what update() checks it against.
   */
  async periodSpending(ref: KeyRef, days: readonly string[]): Promise<PeriodSpending> {
    const transaction = this.redis
      .multi()
      .hmget(this.keys.key(ref.accountId, ref.keyId), "spent", "period_start");
    for (const day of days) transaction.hget(this.keys.usage(ref.accountId, ref.keyId, day), "cost");
    const results = (await transaction.exec()) ?? [];
    for (const [error] of results) if (error) throw error;
    const [spent, periodStart] = (results[0]?.[1] ?? []) as (string | null)[];
    const dayCosts = results.slice(1).map(([, value]) => Number(value ?? 0));
    const cost = dayCosts.reduce((sum, value) => sum + value, 0);
    return { read: { spent: spent ?? "", periodStart: periodStart ?? "" }, cost, dayCosts };
  }

  /**
   * Applies changes to a key (see updateKey-2.lua for their form). A period change applies only if the key's
   * spent amount and period start are still `read` (from periodSpending); otherwise nothing changes and the
   * answer is "conflict", for the caller to read again and retry.
   */
  async update(
    ref: KeyRef,
    changes: KeyChanges,
    audit: string,
    read: PeriodSpending["read"] = { spent: "", periodStart: "" },
  ): Promise<"ok" | "conflict"> {
    const now = this.events.now();
    const [code] = await runScript(
      this.redis,
      "updateKey",
      [
        this.keys.key(ref.accountId, ref.keyId),
        this.keys.audit(ref.accountId),
        this.keys.eventsDue(ref.accountId),
        this.keys.changes(ref.accountId),
      ],
      [JSON.stringify(changes), audit, AUDIT_CAP, read.spent, read.periodStart, now],
    );
    if (code === "key_not_found") throw new GatewayError("key_not_found", `no key with id ${ref.keyId}`);
    if (code === "key_revoked") throw revokedKey(ref.keyId);
    if (code === "conflict") return "conflict";
    // A new expiry may bring a time-based event closer than the account's next work.
    if (changes.expires_at !== undefined) await this.events.hintWork(ref.accountId, now);
    return "ok";
  }
}

/** The limits a key has, as the createKey script takes them (fields of the key record). */
function limitFields(limits: KeyLimits): Record<string, string> {
  const fields: Record<string, string> = {};
  if (limits.rpm !== null) fields.rpm = String(limits.rpm);
  if (limits.tpm !== null) fields.tpm = String(limits.tpm);
  if (limits.maxParallel !== null) fields.max_parallel = String(limits.maxParallel);
  return fields;
}

function revokedKey(keyId: string): GatewayError {
  return new GatewayError("invalid_request", `key ${keyId} is revoked and cannot be changed`);
}
