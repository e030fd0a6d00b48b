// What the money model's commands drive: the real money path, as replicas of the billing layer sharing one
// Redis (billing-system.ts) or as gateways over HTTP (gateway-system.ts). Each operation returns once its
// effects are in Redis (a settlement written, a change seen by every replica), so that the invariants can be
// read after it.

import type { KeyRef } from "../../../src/core/key-ref.js";
import type { Micros } from "../../../src/core/money.js";
import type { Period } from "../../../src/core/periods.js";
import type { Mode, Price, Usage, WindowSpec } from "./model.js";

/** A request to start: on which replica, for which key, at which price, with what it may use at most. */
export interface RequestSpec {
  id: string;
  slot: number;
  key: KeyRef;
  price: Price;
  promptMax: number;
  cap: number;
  /** Its worst case as the model works it out; the system sends the request the gateway sizes the same way. */
  worst: Micros;
}

/** What the reserve script answered when it refused, where the system can see it (the billing layer). */
export interface RefusalFigures {
  budget?: Micros;
  spent?: Micros;
  /** What was reserved for the refusing window's key or account (leases included). */
  reserved?: Micros;
  balance?: Micros;
}

export type Admission =
  | { ok: true; path: "lease" | "reserve"; reservationId: string | null; leaseId: string | null }
  | {
      ok: false;
      code: string;
      scope: "key" | "account" | null;
      period: Period | null;
      figures: RefusalFigures | null;
      /** Nothing but the running requests was reserved (leases off): the refusal must be the model's own. */
      exact?: boolean;
    };

/** Redis as one MULTI read it: the account, its keys, what is reserved and every reservation record. */
export interface Snapshot {
  account: Record<string, string>;
  keys: Record<string, Record<string, string>>;
  reserved: Record<string, string>;
  records: Record<string, string>;
  /** Σ the replicas' ledgers: what their settlements charged by the settle script's own count ('=charged'). */
  settledLedger: number;
}

export interface MoneySystem {
  readonly accountId: string;
  /** The replica id of each slot's current process (lease ids name it). */
  replicaId(slot: number): string | null;
  /** The prompt tokens a request sized for `wanted` counts in its worst case (the body's bytes, over HTTP). */
  promptTokens(wanted: number): number;
  /** A new key of the account, or the code its creation was refused with. */
  createKey(windows: readonly WindowSpec[]): Promise<KeyRef | { refused: string }>;
  setAccount(mode: Mode, windows: readonly WindowSpec[]): Promise<void>;
  topUp(amount: Micros): Promise<void>;
  start(spec: RequestSpec): Promise<Admission>;
  /**
   * Ends requests of one replica together (their settlements go in one batch) and waits until written. With
   * `lostReply`, the batch's first call is made in Redis but its reply lost: the queue sends it again.
   */
  finish(slot: number, ended: readonly { id: string; usage: Usage }[], lostReply?: boolean): Promise<void>;
  /** A failover lost what a running request's reserve wrote (billing layer only; see operator.ts). */
  loseReservation?(id: string): Promise<void>;
  /** The client left before the request was metered: nothing is charged. */
  release(id: string): Promise<void>;
  /** The replica's periodic lease refresh (and give-back of idle leases). */
  tick(slot: number): Promise<void>;
  /** The replica's process dies: its requests never end, its leases are left to expire; a new one takes its slot. */
  kill(slot: number): Promise<void>;
  /** Any script that touches the account releases what expired (as the next request would). */
  purge(): Promise<void>;
  snapshot(): Promise<Snapshot>;
  /** Σ cost in the keys' daily usage counters of `days`, and in the account's month counters. */
  ledger(days: readonly string[]): Promise<{ daily: number; monthly: number }>;
  /** Every replica gives its leases back and waits until Redis has them. */
  quiesce(): Promise<void>;
  /** Σ the costs of the request log lines (µ₽), where the system writes them. */
  loggedCharges?(): number;
  /** Errors nothing should have caused: failed settlements, lease calls of live replicas that failed. */
  unexpectedErrors(): unknown[];
  close(): Promise<void>;
}
