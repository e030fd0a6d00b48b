// How a request the gateway answered with a 5xx of its own is logged, by what caused it:
//   - Redis out of reach (a connection error, or a "not now" reply: LOADING, CLUSTERDOWN, …): an outage. The
//     first request it refuses writes one warning line; the rest of the outage writes nothing, however many
//     requests it refuses; once a request's own Redis call is answered again (with no refusal for a second,
//     so that a Cluster with some slots down is one outage, not one per request), one info line says how
//     many were refused. Redis' own connection lines (store/connection/redis-watch.ts) say why.
//   - A script Redis refused: nothing here — script-errors.ts logged it, once per kind, where the script ran.
//   - Anything else is a bug of ours: an error line with its stack, for each request.
// One instance per replica, shared by the forwarder, the local routes and the admin API.

import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import type { GatewayError } from "../core/errors.js";
import { isConnectionError, isScriptError } from "../core/redis-errors.js";

/** An outage ends once requests reach Redis again and none was refused for this long (ms). */
export const OUTAGE_QUIET_MS = 1000;

interface Outage {
  since: number;
  lastRefusal: number;
  refused: number;
}

export class RequestFailures {
  private outage: Outage | null = null;

  constructor(
    private readonly logger: Logger,
    /** Monotonic time (ms). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A request was answered with `failure`; a bug of ours is logged with `fields` under `message`. */
  failed(failure: GatewayError, fields: Record<string, unknown>, message: string): void {
    if (failure.status < 500) return;
    const cause = failure.cause ?? failure;
    if (isConnectionError(cause)) {
      this.redisAway(cause as Error, fields);
      return;
    }
    if (isScriptError(cause)) return;
    this.logger.error({ ...fields, err: cause }, message);
  }

  /** A request's own Redis call was answered (its reservation, a local route's read). */
  redisAnswered(): void {
    const outage = this.outage;
    if (outage === null || this.now() - outage.lastRefusal < OUTAGE_QUIET_MS) return;
    this.outage = null;
    this.logger.info(
      { refused: outage.refused, down_ms: Math.round(outage.lastRefusal - outage.since) },
      "Redis answers requests again",
    );
  }

  private redisAway(cause: Error, fields: Record<string, unknown>): void {
    const now = this.now();
    if (this.outage === null) {
      this.outage = { since: now, lastRefusal: now, refused: 0 };
      this.logger.warn(
        { ...fields, err: cause.message },
        "Redis is unavailable: requests are answered 503 until it answers again",
      );
    }
    this.outage.refused++;
    this.outage.lastRefusal = now;
  }
}
