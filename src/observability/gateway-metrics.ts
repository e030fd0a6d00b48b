// What the gateway reports to its metrics, and the values read at scrape time: the interface the request path,
// the settlement queue and the alert worker call (metrics.ts implements it), and its no-op stand-in for
// metrics off, as pino swaps a disabled level for one.

import type { Registry } from "prom-client";
import type { AttemptResult } from "../alerts/delivery-plan.js";
import type { IdentityEventName } from "../core/identity-events.js";
import type { Micros } from "../core/money.js";
import type { GatewayRequest } from "../core/request.js";
import type { KeyWindowSample } from "./key-budgets.js";

/** What the gateway reports to its metrics. */
export interface GatewayMetrics {
  /** The registry to serve, or null with metrics off. */
  readonly registry: Registry | null;
  /** A request the gateway finished or refused. */
  request(request: GatewayRequest): void;
  /**
   * The balance and the key's budget windows as the settle script returned them; `keyName` null for the
   * release of a request that was never forwarded, which touches no per-key series.
   */
  settled(
    accountId: string,
    keyId: string,
    keyName: string | null,
    balance: Micros,
    windows: readonly KeyWindowSample[],
  ): void;
  /** An account's balance as just read or written (after a settlement or a top-up). */
  balance(accountId: string, balance: Micros): void;
  settlementFailed(): void;
  /** Redis refused a script for good (observability/script-errors.ts). */
  scriptError(script: string): void;
  /** Settlements no replica acknowledged in time, to be sent again. */
  settlementsUnreplicated(count: number): void;
  /** A settlement whose first write was lost (a failover) made again. */
  settlementReplayed(): void;
  /** Settlements no replica acknowledged within billing.lateSettlementSeconds, no longer sent again. */
  settlementsGivenUp(count: number): void;
  /** A difference between what the replica charged an account and what Redis holds of it (0: none now). */
  booksDrift(accountId: string, difference: Micros): void;
  redisOperation(operation: string, seconds: number): void;
  expiredReservations(count: number): void;
  /** An alert event handed to a delivery worker for the first time. */
  alertEvent(type: string): void;
  webhookDelivery(result: AttemptResult): void;
  /** An identity event (core/identity-events.ts) and its outcome. */
  identityEvent(event: IdentityEventName, outcome: string): void;
}

/** Values read at scrape time rather than updated on every request. */
export interface MetricsProbes {
  inFlight(): number;
  /** The keys of the requests in flight, one entry per request. */
  runningKeys(): Iterable<RunningKey>;
  /** Settlements waiting to be retried because Redis was away. */
  settlementsPending(): number;
  redisUp(): boolean;
  /** Wall clock (ms), to tell whether a budget period has ended since a key's last request. */
  now(): number;
  /** Age (seconds) of the oldest alert event not yet delivered; read from Redis at scrape time. */
  oldestUndeliveredAge?(): Promise<number>;
  /** The gate to the model server (proxy/sharing/upstream-gate.ts), or null without upstream.maxInFlight. */
  queue?(): QueueProbe | null;
}

/** What the metrics read of the gate to the model server at scrape time. */
export interface QueueProbe {
  /** Requests holding a place at the model server. */
  readonly inUse: number;
  waitingAccounts(): Iterable<[accountId: string, waiting: number]>;
}

/** What the per-key in-flight gauge reads of a running request (its key is known once it is admitted). */
export type RunningKey = Pick<GatewayRequest, "accountId" | "keyId" | "keyName" | "maxParallel">;

export interface MetricsOptions {
  /** Per-key series on or off. */
  perKey: boolean;
  /** Most keys with series of their own. */
  maxKeySeries: number;
  /** Most distinct model names with series of their own. */
  maxModelSeries: number;
  /** Most accounts with fair-queue series of their own (1000 by default). */
  maxAccountSeries?: number;
  /** upstream.maxInFlight, for its gauge; unset without a limit. */
  maxInFlight?: number;
  /** Also export Node's process and event-loop metrics. */
  defaultMetrics?: boolean;
}

export const NO_METRICS: GatewayMetrics = {
  registry: null,
  request() {},
  settled() {},
  balance() {},
  settlementFailed() {},
  scriptError() {},
  settlementsUnreplicated() {},
  settlementReplayed() {},
  settlementsGivenUp() {},
  booksDrift() {},
  redisOperation() {},
  expiredReservations() {},
  alertEvent() {},
  webhookDelivery() {},
  identityEvent() {},
};
