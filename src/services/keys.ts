// API key management: create and rotate (the only times a key value exists outside the caller's hands),
// list, show, change, disable and enable, revoke, and read a key's usage and recent requests. Used by the CLI
// and the admin API alike, so both apply the same rules (key-input.ts checks what they give); every change
// names its actor and is recorded in the audit log.

import { generateApiKey, generateKeyId, hashApiKey, keyHint } from "../auth/api-key.js";
import { GatewayError } from "../core/errors.js";
import { formatRubles } from "../core/money.js";
import type { Period } from "../core/periods.js";
import {
  validateAccountId,
  validateKeyId,
  validateLimit,
  validateModels,
  validateName,
} from "../core/validate.js";
import { type Actor, auditEntry } from "../store/audit/audit-store.js";
import type { KeyLimits, KeyRecord } from "../store/records.js";
import type { Stores } from "../store/stores.js";
import type { RequestLogEntry } from "../store/usage/request-log-schema.js";
import { windowDetails, windowWrites } from "./budgets.js";
import {
  booleanInput,
  graceInput,
  keyWindowsInput,
  lifetimeInput,
  limitDetails,
  present,
  requestedChanges,
  thresholdsInput,
  type UpdateKeyInput,
} from "./key-input.js";
import { changeKeyPeriod } from "./key-period-change.js";
import { checkFilter, pageOf, type RequestFilter, type RequestPage } from "./request-log-query.js";
import { UsageService } from "./usage.js";
import type { DailyUsage } from "./usage-schema.js";
import { dailyUsageView } from "./views.js";

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
  /** Limits: requests and tokens per minute, requests in flight; none when omitted. */
  rpm?: unknown;
  tpm?: unknown;
  maxParallel?: unknown;
  /** Budget alert thresholds in percent; [] for none; the configured ones when omitted or null. */
  alertAt?: unknown;
  /** Up to three windows ({period, amount} or "100/day"), instead of budget and period. */
  budgets?: unknown;
}

export interface CreatedKey {
  record: KeyRecord;
  /** The key value: returned here once and never stored. */
  value: string;
}

export const MAX_REQUESTS_READ = 1000;

/** The stores KeyService reads and writes. */
export type KeyStores = Pick<Stores, "accounts" | "keys" | "usage" | "requestLog" | "calendar" | "now">;

export class KeyService {
  constructor(private readonly stores: KeyStores) {}

  async create(input: CreateKeyInput, actor: Actor): Promise<CreatedKey> {
    const accountId = validateAccountId(input.accountId);
    const name = validateName(input.name);
    const { windows, period } = keyWindowsInput(input);
    const budget = windows[0]?.budget ?? null;
    const lifetime = present(input.ttl) ? lifetimeInput(input.ttl) : null;
    const allowedModels = present(input.models) ? validateModels(input.models) : null;
    const logBodies = booleanInput(input.logBodies, "log_bodies") ?? true;
    const limits: KeyLimits = {
      rpm: present(input.rpm) ? validateLimit(input.rpm, "rpm") : null,
      tpm: present(input.tpm) ? validateLimit(input.tpm, "tpm") : null,
      maxParallel: present(input.maxParallel) ? validateLimit(input.maxParallel, "max_parallel") : null,
    };
    const alertAt = present(input.alertAt) ? thresholdsInput(input.alertAt) : null;

    const now = this.stores.now();
    const periods = this.stores.calendar.at(now);
    const value = generateApiKey();
    const hash = hashApiKey(value);
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
      periodStart: periods[period].start,
      budgets: windows.map((window) => ({ ...window, spent: 0, periodStart: periods[window.period].start })),
      allowedModels,
      logBodies,
      revokedAt: null,
      disabledAt: null,
      limits,
      hash,
      previousHash: null,
      previousUntil: null,
      alertAt,
      sharing: { priority: null, maxWaitMs: null },
    };
    const audit = auditEntry(
      actor,
      now,
      "key.create",
      accountId,
      {
        name,
        budget: budget === null ? null : formatRubles(budget),
        period,
        ...(windows.length > 1 && { budgets: windowDetails(windows) }),
        expires_at: record.expiresAt === null ? null : new Date(record.expiresAt).toISOString(),
        allowed_models: allowedModels,
        log_bodies: logBodies,
        ...limitDetails(limits),
        ...(alertAt !== null && { alert_at: alertAt }),
      },
      record.id,
    );
    const zone = this.stores.calendar.zone;
    const writes = windowWrites(windows, periods, zone, [], []);
    await this.stores.keys.create({ ...record, hash, windows: writes, periods }, audit);
    return { record, value };
  }

  async list(accountId: unknown): Promise<KeyRecord[]> {
    const id = validateAccountId(accountId);
    await this.stores.accounts.require(id);
    return this.stores.keys.list(id);
  }

  async show(keyId: unknown): Promise<KeyRecord> {
    return this.stores.keys.requireById(validateKeyId(keyId));
  }

  async update(keyId: unknown, input: UpdateKeyInput, actor: Actor): Promise<KeyRecord> {
    // Every change is checked before the key is read, so that bad input is reported as such, Redis or not.
    const id = validateKeyId(keyId);
    const { changes, details, lifetime, windows } = requestedChanges(input);

    const key = await this.show(id);
    if (lifetime !== undefined) {
      // Counted from now, like a new key's: `--ttl 30d` means thirty days from this change.
      const expiresAt = lifetime === null ? null : this.stores.now() + lifetime;
      changes.expires_at = expiresAt === null ? "" : String(expiresAt);
      details.expires_at = expiresAt === null ? null : new Date(expiresAt).toISOString();
    }
    let newPeriod: Period | undefined;
    if (input.period !== undefined && input.period !== key.period) {
      newPeriod = input.period as Period;
      details.period = input.period;
      if (key.budgets.slice(1).some((window) => window.period === newPeriod)) {
        throw new GatewayError(
          "invalid_request",
          `key ${key.id} already has a ${newPeriod} budget window; give every window with budgets instead`,
        );
      }
    }
    if (Object.keys(details).length === 0) {
      throw new GatewayError(
        "invalid_request",
        `nothing to change: key ${key.id} already has period ${key.period}`,
      );
    }
    const ref = { accountId: key.accountId, keyId: key.id };
    const audit = auditEntry(actor, this.stores.now(), "key.update", key.accountId, details, key.id);
    if (newPeriod === undefined && windows === undefined) {
      await this.stores.keys.update(ref, changes, audit);
      return this.show(key.id);
    }
    await changeKeyPeriod(this.stores, { ref, changes, audit, windows, period: newPeriod });
    return this.show(key.id);
  }

  async revoke(keyId: unknown, actor: Actor): Promise<{ record: KeyRecord; alreadyRevoked: boolean }> {
    const key = await this.show(keyId);
    const now = this.stores.now();
    const audit = auditEntry(actor, now, "key.revoke", key.accountId, { name: key.name }, key.id);
    const { revokedAt, alreadyRevoked } = await this.stores.keys.revoke(
      { accountId: key.accountId, keyId: key.id },
      now,
      audit,
    );
    return { record: { ...key, revokedAt }, alreadyRevoked };
  }

  /**
   * Gives the key a new value, shown in the answer once; the old value keeps working for `grace` (a duration,
   * 0 by default, at most 7 days). Rotating again during a grace period ends that grace at once.
   */
  async rotate(keyId: unknown, grace: unknown, actor: Actor): Promise<CreatedKey> {
    const id = validateKeyId(keyId);
    const graceMs = grace === undefined || grace === null ? 0 : graceInput(grace);
    const key = await this.show(id);
    const now = this.stores.now();
    const value = generateApiKey();
    const hint = keyHint(value);
    const previousUntil = now + graceMs;
    const audit = auditEntry(
      actor,
      now,
      "key.rotate",
      key.accountId,
      {
        name: key.name,
        previous_hint: key.hint,
        hint,
        grace_until: graceMs === 0 ? null : new Date(previousUntil).toISOString(),
      },
      key.id,
    );
    const ref = { accountId: key.accountId, keyId: key.id };
    await this.stores.keys.rotate(ref, { hash: hashApiKey(value), hint }, previousUntil, audit);
    return { record: await this.show(key.id), value };
  }

  /**
   * Disables a key (refused with key_disabled, everything else kept) or enables it again. Doing what is
   * already done changes and records nothing; `changed` says which happened.
   */
  async setDisabled(
    keyId: unknown,
    disabled: boolean,
    actor: Actor,
  ): Promise<{ record: KeyRecord; changed: boolean }> {
    const key = await this.show(keyId);
    const now = this.stores.now();
    const action = disabled ? "key.disable" : "key.enable";
    const audit = auditEntry(actor, now, action, key.accountId, { name: key.name }, key.id);
    const ref = { accountId: key.accountId, keyId: key.id };
    const changed = await this.stores.keys.setDisabled(ref, disabled ? now : null, audit);
    return { record: await this.show(key.id), changed };
  }

  /** The key's usage per day from `from` to `to` (YYYY-MM-DD, inclusive, billing time zone); the last 30 days by default. */
  async usage(keyId: unknown, from?: unknown, to?: unknown): Promise<DailyUsage[]> {
    const id = validateKeyId(keyId);
    const days = new UsageService(this.stores).days(from, to);
    const key = await this.show(id);
    const counters = await this.stores.usage.counters(key.accountId, [key.id], days);
    return days.map((date, d) => dailyUsageView(date, counters[d]?.[0] ?? {}));
  }

  /** The key's most recent requests, newest first. */
  async requests(keyId: unknown, limit: number): Promise<RequestLogEntry[]> {
    const key = await this.show(keyId);
    return this.stores.requestLog.recent(
      key.accountId,
      key.id,
      Math.min(Math.max(1, limit), MAX_REQUESTS_READ),
    );
  }

  /** A page of the key's kept requests that pass the filter, newest first. */
  async requestPage(
    keyId: unknown,
    filter: RequestFilter,
    offset: number,
    limit: number,
  ): Promise<RequestPage> {
    checkFilter(filter);
    const key = await this.show(keyId);
    const entries = await this.stores.requestLog.all(key.accountId, key.id);
    return pageOf(
      entries,
      filter,
      this.stores.calendar.zone,
      offset,
      Math.min(Math.max(1, limit), MAX_REQUESTS_READ),
    );
  }
}
