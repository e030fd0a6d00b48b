// The money path's Redis side: one typed function per billing script. reserve() is the one round trip a
// forwarded request makes before it is forwarded, unless the replica's admission lease on the key covers it
// (lease(), lease-script.ts; see billing/leases.ts); settle() charges it afterwards, exactly once
// (settle-script.ts).

import { randomBytes } from "node:crypto";
import type { ErrorCode } from "../../core/errors.js";
import type { KeyRef } from "../../core/key-ref.js";
import type { ModelCheck } from "../../core/model-check.js";
import type { Micros } from "../../core/money.js";
import { type CurrentPeriods, isPeriod, type Period } from "../../core/periods.js";
import type { EventStore } from "../accounts/event-store.js";
import type { RedisClient } from "../connection/redis.js";
import type { ReplicaAcks } from "../connection/replica-acks.js";
import { type RedisObserver, timed } from "../connection/timing.js";
import { parseModels } from "../records.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";
import { type BillingConnection, type BillingSettings, PURGE_LIMIT } from "./billing-connection.js";
import { type LeaseGrant, type LeaseInput, runLease } from "./lease-script.js";
import { LEDGER_FIELD, runSettle, type Settled, type Settlement } from "./settle-script.js";

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

/** Whose budget window it is: the key's own, or its account's (shared by every key of the account). */
export type BudgetScope = "key" | "account";

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
  /** For a budget refusal, the window that refused: the key's or the account's, and its figures. */
  scope?: BudgetScope;
  budget?: Micros;
  spent?: Micros;
  /** What requests in flight hold for the refusing window's key (scope key) or account (scope account). */
  keyReserved?: Micros;
  period?: Period;
  balance?: Micros;
  accountReserved?: Micros;
}

export class BillingStore {
  /** This process's id among the replicas, in its admission leases and settlement markers. */
  readonly replicaId = randomBytes(9).toString("base64url");

  private readonly connection: BillingConnection;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly settings: BillingSettings,
    events: EventStore,
    private readonly observe?: RedisObserver,
    /** Where settlements go when they must reach replicas (redis.settlementReplicas); null: the connection. */
    private readonly replicaAcks: ReplicaAcks | null = null,
  ) {
    this.connection = { redis, keys, settings, events, observe, replicaId: this.replicaId };
  }

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
          scope: reply[6] === "account" ? "account" : "key",
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

  /** Sets the replica's admission lease on a key (lease-5.lua, see lease-script.ts). */
  lease(ref: KeyRef, input: LeaseInput): Promise<LeaseGrant> {
    return runLease(this.connection, ref, input);
  }

  /**
   * Settles requests of one account in one script call, each exactly once and as if alone; the results
   * come in the same order (settle-n.lua, see settle-script.ts).
   */
  settleMany(
    accountId: string,
    settlements: readonly Settlement[],
    /** Markers of settlements the replica is done with: deleted from its settlement hash. */
    acknowledged: readonly string[] = [],
  ): Promise<Settled[]> {
    return runSettle(this.connection, accountId, settlements, acknowledged);
  }

  /**
   * Settles requests of one account as settleMany does, and says whether they are replicated: whether the
   * replicas redis.settlementReplicas asks for acknowledged the call's writes (WAIT), or none is asked for.
   * Settlements not replicated may be lost in a failover: they are to be sent again.
   */
  async settleReplicated(
    accountId: string,
    settlements: readonly Settlement[],
    acknowledged: readonly string[] = [],
  ): Promise<{ results: Settled[]; replicated: boolean }> {
    const acks = this.replicaAcks;
    if (acks === null) {
      return { results: await this.settleMany(accountId, settlements, acknowledged), replicated: true };
    }
    const route = await acks.route(this.keys.account(accountId));
    const socket = acks.socketOf(route);
    let results: Settled[];
    try {
      results = await runSettle(this.connection, accountId, settlements, acknowledged, route.client);
    } catch (error) {
      acks.failed();
      throw error;
    }
    return { results, replicated: await acks.acknowledged(route, socket) };
  }

  /**
   * What this replica's settlements of the account charged by Redis' count (µ₽): the ledger its settle calls
   * keep, read where they are written, so that it comes after every settle call sent before it. Reading it
   * keeps it (and the replica's settlement hash) for billing.lateSettlementSeconds more.
   */
  async ledger(accountId: string): Promise<Micros> {
    const acks = this.replicaAcks;
    const client = acks === null ? this.redis : (await acks.route(this.keys.account(accountId))).client;
    const hash = this.keys.settlementMarkers(accountId, this.replicaId);
    const replies = await client
      .pipeline()
      .pexpire(hash, this.settings.lateSettlementSeconds * 1000)
      .hget(hash, LEDGER_FIELD)
      .exec();
    const [error, value] = replies?.[1] ?? [new Error("the ledger's read was not answered"), null];
    if (error) throw error;
    return Number(value ?? 0);
  }

  async settle(settlement: Settlement): Promise<Settled> {
    return (await this.settleMany(settlement.ref.accountId, [settlement]))[0] as Settled;
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
