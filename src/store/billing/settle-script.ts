// The settle script's call (settle-n.lua): the settlements of one account in one call, their keys and
// arguments in the script's layout, and its replies read back. BillingStore.settleMany is its entry point.

import type { KeyRef } from "../../core/key-ref.js";
import type { Micros } from "../../core/money.js";
import { type CurrentPeriods, isPeriod, type Period } from "../../core/periods.js";
import type { LeaseHold } from "../../core/request.js";
import type { RedisClient } from "../connection/redis.js";
import { timed } from "../connection/timing.js";
import { runScript } from "../scripts.js";
import type { BillingConnection } from "./billing-connection.js";

/** Upper bounds (ms) of the latency histogram kept in the daily usage counters. */
export const LATENCY_BUCKETS_MS = [
  50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 120_000, 300_000,
];

/**
 * The daily-usage field a latency is counted in: lat_le_<bound>, or lat_le_inf beyond the last bound.
 * Every request is counted in exactly one, so they add up to the day's number of requests.
 */
export function latencyField(ms: number): string {
  for (const bound of LATENCY_BUCKETS_MS) if (ms <= bound) return `lat_le_${bound}`;
  return "lat_le_inf";
}

/** Longest model name counted by name in the daily usage. */
const MAX_MODEL_LENGTH = 128;

/**
 * The model name a settlement is counted under: the model as the caller named it, or "" for none — also for a
 * name no model has (longer than 128 characters, or with control characters), which only a hostile caller
 * sends and which would otherwise fill the usage hash's fields with junk.
 */
export function usageModel(model: string | null): string {
  if (model === null || model.length > MAX_MODEL_LENGTH) return "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  return /[\u0000-\u001f\u007f]/.test(model) ? "" : model;
}

/**
 * A request's settlement: what it is charged, and the entry the key's recent-requests list keeps. Built once
 * per request from the request (billing/settlement.ts), held by the settlement queue until it is written.
 */
export interface Settlement {
  ref: KeyRef;
  /**
   * For the metrics' key_name label; null for the release of a request that was never forwarded (its
   * reservation's reply was lost, and with it the key's name), which touches no per-key series.
   */
  keyName?: string | null;
  reservationId: string;
  /** The request's id (X-Request-Id): how its caller asks for it while it is not yet written. */
  requestId?: string;
  /** The request for the key's recent-requests list (JSON), without and with bodies ("" if none kept). */
  logEntry: string;
  logEntryWithBodies: string;
  cost: Micros;
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens, those the model server served from its cache: counted in the daily usage apart (0 if absent). */
  cachedTokens?: number;
  failed: boolean;
  estimated: boolean;
  latencyMs: number;
  periods: CurrentPeriods;
  /** YYYY-MM-DD of the time the request ended, in the billing time zone. */
  day: string;
  /** When the request ended (ms): the tokens-per-minute correction is made as of then. */
  now: number;
  /** The request's model, counted by model in the daily usage; null for a request without one. */
  model: string | null;
  /** A request admitted on an admission lease (it has no reservation record): what it holds of the lease. */
  leaseHold?: LeaseHold | null;
}

/**
 * The marker a settlement leaves in the replica's settlement hash, which makes it exactly-once: its lease
 * hold's for a leased request, else its reservation id.
 */
export function settlementMarker(settlement: Pick<Settlement, "reservationId" | "leaseHold">): string {
  return settlement.leaseHold?.marker ?? settlement.reservationId;
}

/** The field of the replica's settlement hash that counts what its settlements charged (µ₽). */
export const LEDGER_FIELD = "=charged";

export interface Settled {
  /** Its marker was there: the request had been settled already, and nothing changed. */
  duplicate: boolean;
  /** A release (nothing charged) whose reservation does not exist: there was nothing to settle. */
  nothing?: boolean;
  /** Charged without its reservation, which was not there (lost in a failover, or forgotten long after). */
  vanished?: boolean;
  /** Balance after the charge (absent for a duplicate). */
  balance?: Micros;
  budget?: Micros | null;
  spent?: Micros;
  /** The key's budget period, whose current bounds the request settled in. */
  period?: Period;
  /** Alert events the settlement emitted (a budget threshold reached, the balance low or exhausted). */
  events?: number;
  /** For a leased request: how its lease changed (µ₽, <= 0), and whether the lease still exists. */
  lease?: { delta: Micros; live: boolean };
  /** Every budget window of the key and of its account after the charge (absent for a duplicate). */
  windows?: { key: WindowState[]; account: WindowState[] };
}

/** A budget window as a script reports it: its period, budget and spent amount in the current period. */
export interface WindowState {
  period: Period;
  budget: Micros;
  spent: Micros;
}

/** The windows of a script's reply: "<period>:<budget>:<spent>" separated by spaces ("" for none). */
export function parseWindowStates(text: unknown): WindowState[] {
  if (typeof text !== "string" || text === "") return [];
  return text.split(" ").map((part) => {
    const [period, budget, spent] = part.split(":");
    return { period: isPeriod(period) ? period : "month", budget: Number(budget), spent: Number(spent) };
  });
}

/**
 * Settles requests of one account in one script call, each exactly once and as if alone; the results come in
 * the same order. One account's keys share a hash slot, so a Redis Cluster takes them together.
 */
export async function runSettle(
  { redis, keys: names, settings, events, observe, replicaId }: BillingConnection,
  accountId: string,
  settlements: readonly Settlement[],
  /** Markers of settlements the replica is done with: deleted from its settlement hash. */
  acknowledged: readonly string[] = [],
  /** Where the script runs: the connection's client, or the node of the account's slot (replica-acks.ts). */
  on: RedisClient = redis,
): Promise<Settled[]> {
  const keys = [
    names.account(accountId),
    names.reservations(accountId),
    names.reservationRecords(accountId),
    names.reserved(accountId),
    names.settlementMarkers(accountId, replicaId),
  ];
  const args: (string | number)[] = [
    settings.usageRetentionDays * 86_400,
    settings.requestLogMaxPerKey,
    settings.requestLogRetentionDays * 86_400_000,
    settings.lateSettlementSeconds * 1000,
    acknowledged.join(" "),
  ];
  for (const settlement of settlements) {
    const { ref, leaseHold } = settlement;
    if (ref.accountId !== accountId) {
      throw new Error(`a settlement of account ${ref.accountId} cannot be made with account ${accountId}'s`);
    }
    keys.push(
      names.key(accountId, ref.keyId),
      names.usage(accountId, ref.keyId, settlement.day),
      names.requestLog(accountId, ref.keyId),
      names.month(accountId, settlement.day.slice(0, 7)),
    );
    args.push(
      settlement.periods.day.start,
      settlement.periods.week.start,
      settlement.periods.month.start,
      settlement.reservationId,
      settlement.cost,
      settlement.promptTokens,
      settlement.completionTokens,
      settlement.failed ? 1 : 0,
      settlement.estimated ? 1 : 0,
      Math.round(settlement.latencyMs),
      latencyField(settlement.latencyMs),
      settlement.logEntry,
      settlement.logEntryWithBodies,
      settlement.now,
      // The lease's share is read now: a lease given up since the request was admitted takes nothing back.
      leaseHold ? `${leaseHold.leaseId} ${leaseHold.hold} ${leaseHold.marker} ${leaseHold.share}` : "",
      usageModel(settlement.model),
      settlement.cachedTokens ?? 0,
    );
  }
  keys.push(names.events(accountId));
  args.push(events.context());
  const replies = await timed(observe, "settle", () => runScript<unknown[][]>(on, "settle", keys, args));
  const results = replies.map((reply): Settled => {
    if (reply[0] === "duplicate") return { duplicate: true };
    if (reply[0] === "none") return { duplicate: false, nothing: true };
    return {
      duplicate: false,
      balance: Number(reply[1]),
      budget: reply[2] === "" ? null : Number(reply[2]),
      spent: Number(reply[3]),
      period: isPeriod(reply[4]) ? reply[4] : "month",
      events: Number(reply[5] ?? 0),
      ...(reply[7] === "" || reply[7] === undefined
        ? {}
        : { lease: { delta: Number(reply[6]), live: reply[7] === "live" } }),
      windows: { key: parseWindowStates(reply[8]), account: parseWindowStates(reply[9]) },
      ...(reply[10] === "vanished" && { vanished: true }),
    };
  });
  if (results.some((result) => (result.events ?? 0) > 0)) await events.hintWork(accountId);
  return results;
}
