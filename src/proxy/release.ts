// Releasing a reservation without charging it: a settlement of nothing, for a request that ends before
// it could be metered — the reservation's reply was lost (Redis stalled or the connection dropped), or
// something failed between the reservation and the exchange taking the request over. If the reservation
// was never made, the settlement changes nothing; if it was, it is released now rather than after
// billing.reservationTtlSeconds. The request still appears in the key's recent requests, as failed.

import { performance } from "node:perf_hooks";
import type { LeaseAdmission } from "../billing/leases.js";
import type { SettlementQueue } from "../billing/settlement-queue.js";
import type { KeyRef } from "../core/key-ref.js";
import type { RecordOutcome } from "../core/outcome.js";
import type { PeriodCalendar } from "../core/periods.js";
import { emptyRecord, recentRequestJson } from "../observability/request-record.js";

export interface ReleaseDeps {
  stores: { now: () => number; calendar: PeriodCalendar };
  settlements: SettlementQueue;
}

export interface Released {
  ref: KeyRef;
  reservationId: string;
  requestId: string;
  method: string;
  path: string;
  model: string | null;
  arrivedAt: number;
  /** Why the request ended (e.g. redis_unavailable, internal_error). */
  outcome: RecordOutcome;
  /** The status the client was answered with. */
  status: number;
  /** For the metrics' key_name label, when known. */
  keyName?: string | null;
  /** A request admitted on an admission lease: its hold goes back to the lease. */
  lease?: LeaseAdmission | null;
}

export function submitRelease(deps: ReleaseDeps, request: Released): void {
  const now = deps.stores.now();
  const latencyMs = performance.now() - request.arrivedAt;
  const record = emptyRecord({
    requestId: request.requestId,
    method: request.method,
    path: request.path,
    model: request.model,
    status: request.status,
    outcome: request.outcome,
    endedAt: now,
    latencyMs,
  });
  deps.settlements.submit({
    ref: request.ref,
    keyName: request.keyName ?? null,
    ...(request.lease && { admission: request.lease }),
    input: {
      reservationId: request.reservationId,
      logEntry: recentRequestJson(record, 0).entry,
      logEntryWithBodies: "",
      cost: 0,
      promptTokens: 0,
      completionTokens: 0,
      failed: true,
      estimated: false,
      latencyMs,
      periods: deps.stores.calendar.at(now),
      day: deps.stores.calendar.dayOf(now),
      now,
      model: request.model,
    },
  });
}
