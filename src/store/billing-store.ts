// The money path's Redis side: one typed function per billing script. reserve() is the one round trip a
// forwarded request makes before it is forwarded; settle() charges it afterwards, exactly once.

import type { Micros } from "../billing/money.js";
import { type CurrentPeriods, isPeriod, type Period } from "../billing/periods.js";
import type { ErrorCode } from "../errors.js";
import type { EventStore } from "./event-store.js";
import type { KeyRef } from "./key-store.js";
import { parseModels } from "./records.js";
import type { RedisClient } from "./redis.js";
import type { RedisKeys } from "./redis-keys.js";
import { runScript } from "./scripts.js";
import { type RedisObserver, timed } from "./timing.js";

/** Most expired reservations one script call releases; the rest go on the next calls. */
export const PURGE_LIMIT = 100;

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

export type ModelCheck = { kind: "none" } | { kind: "unknown" } | { kind: "named"; model: string };

export interface ReserveInput {
  reservationId: string;
  amount: Micros;
  /** The request's worst case in tokens, counted against the key's tokens-per-minute limit. */
  tokens: number;
  /** SHA-256 of the key value the request presented (a rotated-out value is refused). */
  keyHash: string;
  now: number;
  periods: CurrentPeriods;
  expiresAt: number;
  model: ModelCheck;
}

/** Where one of a key's per-minute limits stands after an admission. */
export interface LimitState {
  limit: number;
  /** Units (requests or tokens) that would be admitted now. */
  remaining: number;
  /** Milliseconds until the whole allowance is back. */
  resetMs: number;
}

export interface Reservation {
  ok: true;
  /** Reservations of the account released because they expired unsettled. */
  expired: number;
  keyName: string;
  logBodies: boolean;
  allowedModels: string[] | null;
  budget: Micros | null;
  spent: Micros;
  keyReserved: Micros;
  balance: Micros;
  accountReserved: Micros;
  /** Null for a limit the key does not have. */
  rpm: LimitState | null;
  tpm: LimitState | null;
  maxParallel: number | null;
  /** The key's requests in flight, this one included. */
  inFlight: number;
}

export interface Refusal {
  ok: false;
  expired: number;
  code: Extract<
    ErrorCode,
    | "invalid_api_key"
    | "key_revoked"
    | "key_expired"
    | "key_rotated"
    | "key_disabled"
    | "model_not_allowed"
    | "rate_limit_exceeded"
    | "concurrency_limit_exceeded"
    | "budget_exceeded"
    | "insufficient_balance"
  >;
  allowedModels?: string[];
  /** Which per-minute limit refused the request, its value, and milliseconds until the request would fit. */
  limit?: { kind: "rpm" | "tpm"; value: number; waitMs: number };
  /** The key's max_parallel and its requests in flight, for a concurrency refusal. */
  maxParallel?: number;
  inFlight?: number;
  budget?: Micros;
  spent?: Micros;
  keyReserved?: Micros;
  period?: Period;
  balance?: Micros;
  accountReserved?: Micros;
}

export interface SettleInput {
  reservationId: string;
  /** The request for the key's recent-requests list (JSON), without and with bodies ("" if none kept). */
  logEntry: string;
  logEntryWithBodies: string;
  cost: Micros;
  promptTokens: number;
  completionTokens: number;
  failed: boolean;
  estimated: boolean;
  latencyMs: number;
  periods: CurrentPeriods;
  /** YYYY-MM-DD of the time the request ended, in the billing time zone. */
  day: string;
  /** When the request ended (ms): the tokens-per-minute correction is made as of then. */
  now: number;
}

export interface Settled {
  /** No reservation with that id: the request had been settled already, and nothing changed. */
  duplicate: boolean;
  /** Balance after the charge (absent for a duplicate). */
  balance?: Micros;
  budget?: Micros | null;
  spent?: Micros;
  /** The key's budget period, whose current bounds the request settled in. */
  period?: Period;
  /** Alert events the settlement emitted (a budget threshold reached, the balance low or exhausted). */
  events?: number;
}

export interface BillingSettings {
  usageRetentionDays: number;
  lateSettlementSeconds: number;
  /** Most recent requests kept per key (0: none). */
  requestLogMaxPerKey: number;
  /** Days a key's recent-requests list is kept after its latest request. */
  requestLogRetentionDays: number;
}

export class BillingStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly settings: BillingSettings,
    private readonly events: EventStore,
    private readonly observe?: RedisObserver,
  ) {}

  async reserve(ref: KeyRef, input: ReserveInput): Promise<Reservation | Refusal> {
    const { accountId } = ref;
    const reply = await timed(this.observe, "reserve", () =>
      runScript(
        this.redis,
        "reserve",
        [
          this.keys.key(accountId, ref.keyId),
          this.keys.account(accountId),
          this.keys.reservations(accountId),
          this.keys.reservationRecords(accountId),
          this.keys.reserved(accountId),
        ],
        [
          input.now,
          input.periods.day.start,
          input.periods.week.start,
          input.periods.month.start,
          input.reservationId,
          input.amount,
          input.expiresAt,
          input.model.kind,
          input.model.kind === "named" ? input.model.model : "",
          PURGE_LIMIT,
          this.settings.lateSettlementSeconds * 1000,
          input.keyHash,
          input.tokens,
        ],
      ),
    );
    const code = reply[0] as string;
    const expired = Number(reply[1]);
    switch (code) {
      case "ok":
        return {
          ok: true,
          expired,
          keyName: String(reply[2]),
          logBodies: reply[3] !== "0",
          allowedModels: reply[4] ? parseModels(String(reply[4])) : null,
          budget: reply[5] === "" ? null : Number(reply[5]),
          spent: Number(reply[6]),
          keyReserved: Number(reply[7]),
          balance: Number(reply[8]),
          accountReserved: Number(reply[9]),
          rpm: limitState(reply[10], reply[11], reply[12]),
          tpm: limitState(reply[13], reply[14], reply[15]),
          maxParallel: reply[16] === "" ? null : Number(reply[16]),
          inFlight: Number(reply[17]),
        };
      case "model_not_allowed":
        return { ok: false, expired, code, allowedModels: parseModels(String(reply[2])) };
      case "budget_exceeded":
        return {
          ok: false,
          expired,
          code,
          budget: Number(reply[2]),
          spent: Number(reply[3]),
          keyReserved: Number(reply[4]),
          period: isPeriod(reply[5]) ? reply[5] : "month",
        };
      case "insufficient_balance":
        return { ok: false, expired, code, balance: Number(reply[2]), accountReserved: Number(reply[3]) };
      case "rate_limit_exceeded":
        return {
          ok: false,
          expired,
          code,
          limit: {
            kind: reply[2] === "tpm" ? "tpm" : "rpm",
            value: Number(reply[3]),
            waitMs: Number(reply[4]),
          },
        };
      case "concurrency_limit_exceeded":
        return { ok: false, expired, code, maxParallel: Number(reply[2]), inFlight: Number(reply[3]) };
      case "invalid_api_key":
      case "key_revoked":
      case "key_expired":
      case "key_rotated":
      case "key_disabled":
        return { ok: false, expired, code };
      default:
        throw new Error(`reserve script answered an unknown code ${JSON.stringify(code)}`);
    }
  }

  async settle(ref: KeyRef, input: SettleInput): Promise<Settled> {
    return (await this.settleMany(ref.accountId, [{ ref, input }]))[0] as Settled;
  }

  /**
   * Settles requests of one account in one script call, each exactly once and as if alone; the results
   * come in the same order. One account's keys share a hash slot, so a Redis Cluster takes them together.
   */
  async settleMany(
    accountId: string,
    settlements: readonly { ref: KeyRef; input: SettleInput }[],
  ): Promise<Settled[]> {
    const keys = [
      this.keys.account(accountId),
      this.keys.reservations(accountId),
      this.keys.reservationRecords(accountId),
      this.keys.reserved(accountId),
    ];
    const args: (string | number)[] = [
      this.settings.usageRetentionDays * 86_400,
      this.settings.requestLogMaxPerKey,
      this.settings.requestLogRetentionDays * 86_400_000,
    ];
    for (const { ref, input } of settlements) {
      if (ref.accountId !== accountId) {
        throw new Error(
          `a settlement of account ${ref.accountId} cannot be made with account ${accountId}'s`,
        );
      }
      keys.push(
        this.keys.key(accountId, ref.keyId),
        this.keys.usage(accountId, ref.keyId, input.day),
        this.keys.requestLog(accountId, ref.keyId),
      );
      args.push(
        input.periods.day.start,
        input.periods.week.start,
        input.periods.month.start,
        input.reservationId,
        input.cost,
        input.promptTokens,
        input.completionTokens,
        input.failed ? 1 : 0,
        input.estimated ? 1 : 0,
        Math.round(input.latencyMs),
        latencyField(input.latencyMs),
        input.logEntry,
        input.logEntryWithBodies,
        input.now,
      );
    }
    keys.push(this.keys.events(accountId));
    args.push(this.events.context());
    const replies = await timed(this.observe, "settle", () =>
      runScript<unknown[][]>(this.redis, "settle", keys, args),
    );
    const results = replies.map((reply): Settled => {
      if (reply[0] === "duplicate") return { duplicate: true };
      return {
        duplicate: false,
        balance: Number(reply[1]),
        budget: reply[2] === "" ? null : Number(reply[2]),
        spent: Number(reply[3]),
        period: isPeriod(reply[4]) ? reply[4] : "month",
        events: Number(reply[5] ?? 0),
      };
    });
    if (results.some((result) => (result.events ?? 0) > 0)) await this.events.hintWork(accountId);
    return results;
  }

  /** Moves the expiry of running requests' reservations forward; returns how many were extended. */
  async extend(accountId: string, reservationIds: readonly string[], expiresAt: number): Promise<number> {
    if (reservationIds.length === 0) return 0;
    const extended = await timed(this.observe, "extend", () =>
      runScript<number>(
        this.redis,
        "extendReservations",
        [this.keys.reservations(accountId)],
        [expiresAt, ...reservationIds],
      ),
    );
    return Number(extended);
  }

  /** What the account's requests in flight hold: the whole account and each key (µ₽). */
  async reserved(accountId: string): Promise<{ account: Micros; keys: Record<string, Micros> }> {
    const hash = await this.redis.hgetall(this.keys.reserved(accountId));
    const keys: Record<string, Micros> = {};
    for (const [field, value] of Object.entries(hash)) {
      if (field !== "*" && !field.endsWith(IN_FLIGHT)) keys[field] = Number(value);
    }
    return { account: Number(hash["*"] ?? 0), keys };
  }

  /** The account's keys with requests in flight (across every replica), and how many each has. */
  async inFlight(accountId: string): Promise<Record<string, number>> {
    const hash = await this.redis.hgetall(this.keys.reserved(accountId));
    const keys: Record<string, number> = {};
    for (const [field, value] of Object.entries(hash)) {
      if (field.endsWith(IN_FLIGHT)) keys[field.slice(0, -IN_FLIGHT.length)] = Number(value);
    }
    return keys;
  }
}

/** The suffix of a key's count of requests in flight in the reserved-totals hash (next to its µ₽). */
const IN_FLIGHT = "#n";

/** A per-minute limit's state from the reserve script's reply, or null when the key has no such limit. */
function limitState(limit: unknown, remaining: unknown, resetMs: unknown): LimitState | null {
  if (limit === "" || limit === null || limit === undefined) return null;
  return { limit: Number(limit), remaining: Number(remaining), resetMs: Number(resetMs) };
}
