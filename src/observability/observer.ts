// The one place finished and refused requests, and settlements, are reported: it writes their log lines and
// counts them in the metrics, from the request itself (core/request.ts; its line is log-line.ts's), and hands
// them to OpenTelemetry (telemetry.ts) when that is on. What it calls can throw (a metric, a log write); it
// never lets that reach the request path, which has already answered.

import type { Logger } from "pino";
import type { DriftReport } from "../billing/books-watch.js";
import type { GatewayRequest } from "../core/request.js";
import type { Settled, Settlement } from "../store/billing/settle-script.js";
import type { GatewayMetrics } from "./gateway-metrics.js";
import { logFields } from "./log-line.js";
import { NO_TELEMETRY, type RequestTelemetry } from "./telemetry.js";

export interface RequestObserver {
  /** A forwarded request ended (completed or not); its settlement has been handed over. */
  finished(request: GatewayRequest): void;
  /** The gateway refused a request itself, with a code of the error table. */
  refused(request: GatewayRequest): void;
  /** Reservations of an account were found expired (never settled) while reserving. */
  expiredReservations(count: number): void;
}

export interface SettlementObserver {
  settled(settlement: Settlement, result: Settled): void;
  retrying(settlement: Settlement, error: unknown): void;
  failed(settlement: Settlement, error: unknown): void;
  /** Settlements no replica acknowledged in time: they will be sent again. */
  unreplicated(settlements: readonly Settlement[]): void;
  /** The settlement queue started waiting for Redis or a replica (once per wait). */
  waiting(reason: "redis" | "replica", settlements: number): void;
  /** ...and nothing waits any more. */
  recovered(waitedMs: number): void;
  /** Settlements no replica acknowledged within billing.lateSettlementSeconds: no longer sent again. */
  givenUp(settlements: readonly Settlement[]): void;
  /** A settlement whose first write was lost (a failover) was made again. */
  replayed(settlement: Settlement): void;
  hookFailed(hook: string, error: unknown): void;
  /** What the replica charged an account and what Redis holds of it differ (or agree again). */
  drift(report: DriftReport): void;
}

export interface ObserverOptions {
  /** Request and response bodies on log lines, cut to this many bytes; null keeps them out (logging.bodies). */
  logBodies: number | null;
}

export function createObserver(
  logger: Logger,
  metrics: GatewayMetrics,
  options: ObserverOptions,
  /** OpenTelemetry's spans and GenAI metrics, from the same request (telemetry.ts); nothing while off. */
  telemetry: RequestTelemetry = NO_TELEMETRY,
): RequestObserver & SettlementObserver {
  const failed = (what: string, error: unknown) => logger.error({ err: error }, `reporting ${what} failed`);
  // try/catch written out in each, not a helper taking a callback: these run once per request.
  return {
    finished(request) {
      try {
        logger.info(logFields(request, options.logBodies), "request");
        metrics.request(request);
        telemetry.finished(request);
      } catch (error) {
        failed("a finished request", error);
      }
    },
    refused(request) {
      try {
        logger.info(logFields(request, null), "request refused");
        metrics.request(request);
        telemetry.refused(request);
      } catch (error) {
        failed("a refused request", error);
      }
    },
    expiredReservations(count) {
      try {
        metrics.expiredReservations(count);
        logger.warn({ count }, "released reservations that expired unsettled");
      } catch (error) {
        failed("expired reservations", error);
      }
    },
    settled(settlement, result) {
      if (result.balance === undefined) return;
      const { ref, periods } = settlement;
      // A reply without windows (a script from before them) has its first window in budget and period.
      const windows =
        result.windows?.key ??
        (result.budget == null
          ? []
          : [{ period: result.period ?? "month", budget: result.budget, spent: result.spent ?? 0 }]);
      metrics.settled(
        ref.accountId,
        ref.keyId,
        settlement.keyName ?? null,
        result.balance,
        windows.map((window) => ({ ...window, resetAt: periods[window.period].end })),
      );
    },
    retrying(settlement, error) {
      // One warning per wait (waiting below), not a line per settlement per retry; this is for debugging.
      logger.debug(
        { reservation_id: settlement.reservationId, err: (error as Error).message },
        "settlement delayed; will retry",
      );
    },
    waiting(reason, settlements) {
      const why =
        reason === "redis"
          ? "Redis does not answer"
          : "no replica acknowledged them in time (redis.settlementReplicas)";
      logger.warn(
        { reason, settlements },
        `settlements wait: ${why}; they stay queued and are sent again until done`,
      );
    },
    recovered(waitedMs) {
      logger.info({ waited_ms: waitedMs }, "settlements no longer wait: every one that did is done");
    },
    givenUp(settlements) {
      try {
        metrics.settlementsGivenUp(settlements.length);
        const accounts = [...new Set(settlements.map((s) => s.ref.accountId))];
        logger.error(
          {
            settlements: settlements.length,
            accounts,
            cost_micros: settlements.reduce((sum, s) => sum + s.cost, 0),
            request_ids: settlements.map((s) => s.requestId),
          },
          "settlements no replica acknowledged within billing.lateSettlementSeconds are no longer sent again; if a failover lost them, the books watch names the account",
        );
      } catch (error) {
        failed("settlements given up", error);
      }
    },
    failed(settlement, error) {
      metrics.settlementFailed();
      // Everything reconciliation needs, but not the request-log entry with bodies: that copy exists for the
      // key's recent-requests list, and bodies reach stdout only under logging.bodies (the request line).
      const { logEntryWithBodies: _, ref, leaseHold: __, ...fields } = settlement;
      logger.error(
        { settlement: { ...fields, ...ref }, err: error },
        "settlement refused by Redis; recorded here for reconciliation",
      );
    },
    unreplicated(settlements) {
      try {
        // Counted each time; logged once per wait (waiting above).
        metrics.settlementsUnreplicated(settlements.length);
      } catch (error) {
        failed("unacknowledged settlements", error);
      }
    },
    replayed(settlement) {
      try {
        metrics.settlementReplayed();
        logger.warn(
          {
            reservation_id: settlement.reservationId,
            request_id: settlement.requestId,
            account: settlement.ref.accountId,
            cost_micros: settlement.cost,
          },
          "settlement lost in a failover was made again",
        );
      } catch (error) {
        failed("a replayed settlement", error);
      }
    },
    hookFailed(hook, error) {
      logger.error({ hook, err: error }, "a settlement hook failed");
    },
    drift({ accountId, difference, charged, ledger, pending }) {
      try {
        metrics.booksDrift(accountId, difference);
        const figures = {
          account: accountId,
          difference_micros: difference,
          charged_micros: charged,
          redis_micros: ledger,
          pending_micros: pending,
        };
        if (difference === 0) {
          logger.info(figures, `books of account ${accountId} agree with Redis again`);
        } else {
          const what = difference < 0 ? "less than" : "more than";
          logger.error(
            figures,
            `books drift on account ${accountId}: Redis holds ${Math.abs(difference)} µ₽ ${what} this replica charged`,
          );
        }
      } catch (error) {
        failed("a drift of the books", error);
      }
    },
  };
}
