// The money path's Redis side: one typed function per billing script. reserve() is the one round trip a
// forwarded request makes before it is forwarded (reserve-script.ts), unless the replica's admission lease on
// the key covers it (lease(), lease-script.ts; see billing/leases.ts); settle() charges it afterwards,
// exactly once (settle-script.ts).

import { randomBytes } from "node:crypto";
import type { KeyRef } from "../../core/key-ref.js";
import type { Micros } from "../../core/money.js";
import type { EventStore } from "../accounts/event-store.js";
import type { RedisClient } from "../connection/redis.js";
import type { ReplicaAcks } from "../connection/replica-acks.js";
import { type RedisObserver, timed } from "../connection/timing.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";
import type { BillingConnection, BillingSettings } from "./billing-connection.js";
import { type LeaseGrant, type LeaseInput, runLease } from "./lease-script.js";
import { type Refusal, type Reservation, type ReserveInput, runReserve } from "./reserve-script.js";
import { LEDGER_FIELD, runSettle, type Settled, type Settlement } from "./settle-script.js";

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

  /** Reserves a request's worst case on its key and account (reserve-5.lua, see reserve-script.ts). */
  reserve(ref: KeyRef, input: ReserveInput): Promise<Reservation | Refusal> {
    return runReserve(this.connection, ref, input);
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
