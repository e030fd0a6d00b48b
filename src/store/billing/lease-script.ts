// The lease script's call (lease-5.lua): a replica's admission lease on a key set to an amount, and the
// key's facts it admits requests by read back. BillingStore.lease is its entry point; billing/leases.ts uses
// it.

import type { KeyRef } from "../../core/key-ref.js";
import type { Micros } from "../../core/money.js";
import type { CurrentPeriods } from "../../core/periods.js";
import { timed } from "../connection/timing.js";
import { parseModels } from "../records.js";
import { runScript } from "../scripts.js";
import { type BillingConnection, PURGE_LIMIT } from "./billing-connection.js";

/** A lease after one script call: how it changed, what it holds, and the key's facts it is checked against. */
export interface LeaseGrant {
  /**
   * ok; limits (the key has rate or concurrency limits: no lease); lost (the lease expired while counted
   * on); or the code a request of the key would be refused with.
   */
  state: "ok" | "limits" | "lost" | "invalid_api_key" | "key_revoked" | "key_expired" | "key_disabled";
  delta: Micros;
  amount: Micros;
  expired: number;
  keyName: string;
  logBodies: boolean;
  allowedModels: string[] | null;
  /** Null for a key that never expires. */
  expiresAt: number | null;
  /** The key's value hash ("" for a key from before rotation), the previous one and its grace end. */
  hash: string;
  previousHash: string;
  previousUntil: number;
}

export interface LeaseInput {
  leaseId: string;
  /** The amount the lease should hold (µ₽): it shrinks to it, or grows towards it as far as is free. */
  amount: Micros;
  now: number;
  periods: CurrentPeriods;
  expiresAt: number;
  /** A lease holds at most 1/share of what is available to it. */
  share: number;
  /** False to only shrink: a replica giving a lease back must never bring it back to life. */
  grow: boolean;
  /**
   * True when the replica counts on the lease holding something (its mirror is above 0): a lease then missing
   * in Redis was lost in a failover and is answered 'lost' rather than granted anew.
   */
  expected?: boolean;
}

/** Sets the replica's admission lease on a key. */
export async function runLease(
  { redis, keys: names, settings, observe }: BillingConnection,
  ref: KeyRef,
  input: LeaseInput,
): Promise<LeaseGrant> {
  const { accountId } = ref;
  const reply = await timed(observe, "lease", () =>
    runScript<unknown[]>(
      redis,
      "lease",
      [
        names.key(accountId, ref.keyId),
        names.account(accountId),
        names.reservations(accountId),
        names.reservationRecords(accountId),
        names.reserved(accountId),
      ],
      [
        input.now,
        input.periods.day.start,
        input.periods.week.start,
        input.periods.month.start,
        input.leaseId,
        input.amount,
        input.expiresAt,
        PURGE_LIMIT,
        settings.lateSettlementSeconds * 1000,
        input.share,
        input.grow ? 1 : 0,
        input.expected ? 1 : 0,
      ],
    ),
  );
  return {
    state: String(reply[0]) as LeaseGrant["state"],
    delta: Number(reply[1]),
    amount: Number(reply[2]),
    expired: Number(reply[3]),
    keyName: String(reply[4]),
    logBodies: reply[5] === "1",
    allowedModels: reply[6] ? parseModels(String(reply[6])) : null,
    expiresAt: reply[7] === "" ? null : Number(reply[7]),
    hash: String(reply[8]),
    previousHash: String(reply[9]),
    previousUntil: reply[10] === "" ? 0 : Number(reply[10]),
  };
}
