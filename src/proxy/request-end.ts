// The end of a forwarded request, whatever way it ended: it takes its times, gives its place at the model
// server to the next request (upstream.maxInFlight), the billing settles it (or releases it, if its charge
// cannot be worked out), it leaves the tracker, and the observer reports it. Nothing is thrown back into the
// event handler that ended it.

import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import type { RequestBilling } from "../billing/request-billing.js";
import type { GatewayRequest } from "../core/request.js";
import type { RequestObserver } from "../observability/observer.js";
import type { RequestTracker } from "./request-tracker.js";
import type { UpstreamGate } from "./upstream-gate.js";

export interface RequestEndDeps {
  /** The gate to the model server (upstream.maxInFlight): the request's place goes to the next. */
  gate?: Pick<UpstreamGate, "release"> | null;
  billing: Pick<RequestBilling, "settle">;
  tracker: Pick<RequestTracker, "end">;
  observer: Pick<RequestObserver, "finished">;
  logger: Logger;
  /** Wall clock (ms). */
  now(): number;
}

export function endRequest(deps: RequestEndDeps, request: GatewayRequest): void {
  request.end(deps.now(), performance.now());
  deps.gate?.release(request);
  deps.billing.settle(request);
  deps.tracker.end(request);
  try {
    deps.observer.finished(request);
  } catch (error) {
    deps.logger.error({ request_id: request.requestId, err: error }, "reporting a finished request failed");
  }
}
