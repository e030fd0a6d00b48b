// The end of a forwarded request, whatever way it ended, as the last stages of the path (pipeline.ts): settle
// — its times taken, its place at the model server given to the next request (upstream.maxInFlight), the
// billing settles it (or releases it, if its charge cannot be worked out) — and record — it leaves the
// tracker, and the observer reports it. Nothing is thrown back into the event handler that ended it.

import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import type { RequestBilling } from "../billing/request-billing.js";
import type { AdmittedRequest } from "../core/request.js";
import type { RequestObserver } from "../observability/observer.js";
import type { RequestTracker } from "./request-tracker.js";
import type { UpstreamGate } from "./sharing/upstream-gate.js";

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

/** A stage of the ending: it runs on the ended request, and throws nothing. */
interface EndingStage {
  readonly name: string;
  readonly does: string;
  run(deps: RequestEndDeps, request: AdmittedRequest): void;
}

const settle: EndingStage = {
  name: "settle",
  does: "takes its times, frees its place at the model server, settles its charge (billing's second call)",
  run(deps, request) {
    request.end(deps.now(), performance.now());
    deps.gate?.release(request);
    deps.billing.settle(request);
  },
};

const record: EndingStage = {
  name: "record",
  does: "leaves the tracker; the observer writes the log line, the metrics and the trace",
  run(deps, request) {
    deps.tracker.end(request);
    try {
      deps.observer.finished(request);
    } catch (error) {
      deps.logger.error({ request_id: request.requestId, err: error }, "reporting a finished request failed");
    }
  },
};

/** What runs once the exchange has ended the request, in order. */
export const ENDING: readonly EndingStage[] = [settle, record];

export function endRequest(deps: RequestEndDeps, request: AdmittedRequest): void {
  for (const stage of ENDING) stage.run(deps, request);
}
