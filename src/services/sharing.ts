// How accounts and keys share a full model server (docs/fair-sharing.md), changed by the CLI and the admin API
// alike: an account's weight, priority and longest wait (operators), a key's own priority and longest wait (the
// account's owners and members too: a key may only be made less urgent than its account, or wait less); and an
// account's queueing as the dashboard shows it — on the replica that answers, now, and in its keys' recent
// requests, whichever replica served them.

import { GatewayError } from "../core/errors.js";
import { MAX_PRIORITY, validateMaxWaitMs, validatePriority, validateWeight } from "../core/sharing.js";
import { validateAccountId, validateKeyId } from "../core/validate.js";
import { type Actor, auditEntry } from "../store/audit/audit-store.js";
import type { AccountRecord, KeyRecord } from "../store/records.js";
import type { SharingChanges } from "../store/sharing/sharing-store.js";
import type { Stores } from "../store/stores.js";

/** What to change: undefined keeps a setting, null removes it (the default applies). */
export interface SharingInput {
  weight?: unknown;
  priority?: unknown;
  maxWaitMs?: unknown;
}

/** The stores SharingService reads and writes. */
export type SharingStores = Pick<Stores, "accounts" | "keys" | "sharing" | "requestLog" | "now">;

/** The gate to the model server of the replica that answers (gateway.ts builds it; none without a limit). */
export interface QueueProbe {
  /** upstream.maxInFlight, and whether the replicas share it. */
  limit: number;
  shared: boolean;
  inUse(): number;
  waiting(): number;
  account(accountId: string): { waiting: number; oldestWaitMs: number };
}

/** An account's queueing, as the admin API answers it. */
export interface AccountQueueView {
  limit: number | null;
  shared: boolean;
  /** The replica that answers, now; null without a limit. */
  replica: { in_use: number; waiting: number; account_waiting: number; oldest_wait_ms: number } | null;
  /** The latest requests of each of the account's keys that went through the queue, on any replica. */
  recent: {
    requests: number;
    waited: number;
    p50_queue_ms: number | null;
    p95_queue_ms: number | null;
    max_queue_ms: number | null;
    server_busy: number;
  };
}

/** How many of each key's latest requests the recent waits are read from. */
export const RECENT_PER_KEY = 100;

export class SharingService {
  constructor(private readonly stores: SharingStores) {}

  /** Changes the account's settings; returns the account as it now is. */
  async setAccount(accountId: unknown, input: SharingInput, actor: Actor): Promise<AccountRecord> {
    const id = validateAccountId(accountId);
    const changes: SharingChanges = {};
    const details: Record<string, number | null> = {};
    if (input.weight !== undefined) {
      // The default weight is 1: null puts it back.
      const weight = input.weight === null || isNone(input.weight) ? 1 : validateWeight(input.weight);
      changes.weight = String(weight);
      details.weight = weight;
    }
    setOptional(changes, details, "priority", input.priority, validatePriority);
    setOptional(changes, details, "max_wait_ms", input.maxWaitMs, validateMaxWaitMs);
    nothingToChange(details, "a weight, a priority or a max_wait_ms");
    await this.stores.accounts.require(id);
    const audit = auditEntry(actor, this.stores.now(), "account.sharing.update", id, details);
    await this.stores.sharing.setAccount(id, changes, audit);
    return this.stores.accounts.require(id);
  }

  /** Changes the key's settings; returns the key as it now is. */
  async setKey(keyId: unknown, input: Omit<SharingInput, "weight">, actor: Actor): Promise<KeyRecord> {
    const id = validateKeyId(keyId);
    const changes: SharingChanges = {};
    const details: Record<string, number | null> = {};
    setOptional(changes, details, "priority", input.priority, validatePriority);
    setOptional(changes, details, "max_wait_ms", input.maxWaitMs, validateMaxWaitMs);
    nothingToChange(details, "a priority or a max_wait_ms");
    const key = await this.stores.keys.requireById(id);
    const priority = details.priority;
    if (typeof priority === "number") {
      const account = await this.stores.accounts.require(key.accountId);
      const floor = account.priority ?? 0;
      if (priority < floor) {
        throw new GatewayError(
          "invalid_request",
          `priority of key ${id} must be from ${floor}, its account's priority, to ${MAX_PRIORITY}: a key may be made less urgent than its account, never more (lower values are served first); got ${priority}`,
        );
      }
    }
    const ref = { accountId: key.accountId, keyId: id };
    const audit = auditEntry(actor, this.stores.now(), "key.sharing.update", key.accountId, details, id);
    await this.stores.sharing.setKey(ref, changes, audit);
    return this.stores.keys.requireById(id);
  }
}

/**
 * The account's queueing: on the answering replica now (`probe`, null where there is no limit), and in the
 * latest RECENT_PER_KEY requests of each of its keys that asked for a place — how long they waited, and how
 * many were refused with server_busy (a 429 the gateway gave after admitting them: the fair queue's).
 */
export async function accountQueue(
  stores: Pick<Stores, "accounts" | "keys" | "requestLog">,
  account: unknown,
  probe: QueueProbe | null,
): Promise<AccountQueueView> {
  const accountId = validateAccountId(account);
  await stores.accounts.require(accountId);
  const keys = await stores.keys.list(accountId);
  const lists = await Promise.all(
    keys.map((key) => stores.requestLog.recent(accountId, key.id, RECENT_PER_KEY)),
  );
  const waits: number[] = [];
  let busy = 0;
  for (const entry of lists.flat()) {
    if (entry.queue_ms === undefined) continue;
    waits.push(entry.queue_ms);
    if (entry.status === 429 && entry.outcome === "refused") busy++;
  }
  waits.sort((a, b) => a - b);
  const at = (q: number) => (waits.length === 0 ? null : (waits[Math.ceil(q * waits.length) - 1] as number));
  const state = probe?.account(accountId);
  return {
    limit: probe?.limit ?? null,
    shared: probe?.shared ?? false,
    replica:
      probe === null || state === undefined
        ? null
        : {
            in_use: probe.inUse(),
            waiting: probe.waiting(),
            account_waiting: state.waiting,
            oldest_wait_ms: Math.round(state.oldestWaitMs),
          },
    recent: {
      requests: waits.length,
      waited: waits.filter((ms) => ms > 0).length,
      p50_queue_ms: at(0.5),
      p95_queue_ms: at(0.95),
      max_queue_ms: waits.at(-1) ?? null,
      server_busy: busy,
    },
  };
}

/** Sets (a validated whole number) or removes (null, or "none" from the CLI) an optional setting. */
function setOptional(
  changes: SharingChanges,
  details: Record<string, number | null>,
  field: "priority" | "max_wait_ms",
  value: unknown,
  validate: (value: unknown) => number,
): void {
  if (value === undefined) return;
  if (value === null || isNone(value)) {
    changes[field] = "";
    details[field] = null;
    return;
  }
  const number = validate(value);
  changes[field] = String(number);
  details[field] = number;
}

function isNone(value: unknown): boolean {
  return typeof value === "string" && value.trim().toLowerCase() === "none";
}

function nothingToChange(details: Record<string, unknown>, what: string): void {
  if (Object.keys(details).length === 0)
    throw new GatewayError("invalid_request", `nothing to change: give ${what}`);
}
