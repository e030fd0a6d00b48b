// The request path, in one place: every request the gateway does not answer itself runs the stages below, in
// this order, each in a file of its own under stages/ with the phase it takes and the phase it leaves the
// request in (stages/phases.ts). Once `send` has handed the request to its exchange with the model server,
// the exchange relays the answer and, whatever way it ends, runs the ending's stages (request-end.ts): meter,
// settle, record. Billing is asked twice: `admit` and `settle`. Once a request is admitted it is settled or
// released, whatever fails afterwards. docs/development.md draws this list; a test keeps the two equal.

import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import type { RequestBilling } from "../billing/request-billing.js";
import type { Config } from "../config/schema.js";
import { asGatewayError, GatewayError } from "../core/errors.js";
import { GatewayRequest } from "../core/request.js";
import { isNotWhole } from "../http/body.js";
import { errorFormatOf, sendError } from "../http/respond.js";
import type { RequestObserver } from "../observability/observer.js";
import { RequestFailures } from "../observability/request-failures.js";
import type { Tracing } from "../observability/telemetry.js";
import { type ExchangeDeps, RELAY } from "./relay/exchange.js";
import { createUpstreamProxy } from "./relay/upstream-proxy.js";
import { ENDING, endRequest, type RequestEndDeps } from "./request-end.js";
import type { RequestTracker } from "./request-tracker.js";
import { type AdmitDeps, admit } from "./stages/admit.js";
import { type AuthenticateDeps, authenticate } from "./stages/authenticate.js";
import { type ClassifyDeps, classify } from "./stages/classify.js";
import { type InspectDeps, inspect } from "./stages/inspect.js";
import { type Arrived, Passage, type Sent } from "./stages/phases.js";
import { type SendDeps, send } from "./stages/send.js";
import type { PathOutput } from "./stages/stage.js";

/** The path to the model server, in order. Adding a stage is adding a line (and a file under stages/). */
export const STAGES = [authenticate, classify, inspect, admit, send] as const;

/** The whole path, as docs/development.md draws it: the stages, the exchange's relay, then the ending's. */
export const PATH: readonly { name: string; does: string }[] = [...STAGES, RELAY, ...ENDING];

/** The stages fit each other: each takes the phase the one before it gives, from Arrived to Sent. */
export const STAGES_FIT: PathOutput<typeof STAGES, Arrived> extends Sent ? true : never = true;

/** Handles a request that the gateway does not answer itself (the public listener's everything-else). */
export type Forwarder = (
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  /** When it arrived (performance.now()). */
  arrivedAt: number,
  /** The URL's path, without the query. */
  path: string,
  /** Whether the request came over HTTPS (the socket, or a trusted proxy's X-Forwarded-Proto). */
  secure: boolean,
) => void;

export interface ForwardingProxy {
  forward: Forwarder;
  /**
   * Stops forwarding new requests (they get 503 and go to another replica); those in flight go on, and those
   * waiting for the model server are answered 503 at once.
   */
  stopForwarding(): void;
  close(): void;
}

/** What the path uses: what each stage and the ending use, and what the runner itself does with a refusal. */
export type PipelineDeps = AuthenticateDeps &
  ClassifyDeps &
  InspectDeps &
  Omit<AdmitDeps, "failures"> &
  Omit<SendDeps, "proxy" | "exchange"> &
  RequestEndDeps & {
    config: Pick<
      Config,
      "upstream" | "limits" | "estimate" | "billing" | "logging" | "requestLog" | "metering"
    >;
    billing: Pick<RequestBilling, "admit" | "release" | "settle">;
    /** What is in flight (shutdown, the keeper and the gauge read it). */
    tracker: Pick<RequestTracker, "begin" | "end">;
    observer: Pick<RequestObserver, "finished" | "refused">;
    /** Starts each request's trace while tracing is on; null (the client's trace headers untouched) while off. */
    tracing?: Tracing | null;
    logger: Logger;
    /** Wall clock (ms). */
    now(): number;
    /** How a 5xx of its own is logged: once per Redis outage, per request for a bug (the replica's one). */
    failures?: Pick<RequestFailures, "failed" | "redisAnswered">;
  };

/** What each exchange is given: built once, from the path's settings and parts. */
export function exchangeDeps(deps: PipelineDeps): ExchangeDeps {
  const { upstream, metering, logging, requestLog } = deps.config;
  return {
    timeoutMs: upstream.timeoutMs,
    metering,
    captureBytes: Math.max(logging.bodies ? logging.maxBodyBytes : 0, requestLog.maxBodyBytes),
    logger: deps.logger,
    end: (request) => endRequest(deps, request),
  };
}

export function createPipeline(deps: PipelineDeps): ForwardingProxy {
  const upstream = createUpstreamProxy(deps.config.upstream);
  const failures = deps.failures ?? new RequestFailures(deps.logger);
  const built = { ...deps, failures, proxy: upstream.proxy, exchange: exchangeDeps(deps) };
  // Checked to fit by FITS above; at run time every stage is given the request's one Passage.
  const stages = STAGES.map((stage) => stage.create(built) as (passage: Passage) => unknown);
  const tracing = deps.tracing ?? null;
  let forwarding = true;

  async function run(passage: Passage): Promise<void> {
    const { request } = passage;
    if (tracing !== null) request.trace = tracing.begin(passage.req.headers, request.arrivedAt);
    deps.tracker.begin(request);
    try {
      if (!forwarding)
        throw new GatewayError("service_unavailable", "The gateway is shutting down; retry the request.");
      for (const stage of stages) {
        const out = stage(passage);
        if (out instanceof Promise) await out;
      }
    } catch (error) {
      let failure = error;
      const gone = clientGone(passage);
      // Admitted, but not handed over to its exchange: released now, not at its reservation's expiry.
      if (passage.admission !== null && passage.forwarded === null) {
        try {
          if (gone) deps.billing.release(passage.admission.request, "client_aborted", 499);
          else deps.billing.release(passage.admission.request, "internal_error", 500);
        } catch (releaseFailed) {
          failure = releaseFailed;
        }
      }
      try {
        if (gone) departed(deps, passage);
        else refuse(deps, failures, passage, failure);
      } catch (reporting) {
        // Nothing awaits this turn: a bug while answering or reporting must not become an unhandled rejection,
        // which would end the process.
        deps.logger.error(
          { request_id: request.requestId, err: reporting },
          "reporting a refused request failed",
        );
      }
      deps.tracker.end(request);
    }
  }

  return {
    forward: (req, res, requestId, arrivedAt, path, secure) => {
      const method = req.method ?? "GET";
      const request = new GatewayRequest(requestId, method, path, arrivedAt);
      request.errorFormat = errorFormatOf(path);
      void run(new Passage(req, res, request, requestId, method, path, secure));
    },
    stopForwarding: () => {
      forwarding = false;
      deps.gate?.drain();
    },
    close: () => upstream.close(),
  };
}

/** The client is gone, or its connection was answered and ended by the parser: there is no one to answer. */
function clientGone({ req, res }: Passage): boolean {
  return res.destroyed || !req.socket.writable;
}

/**
 * A client that left before its request was forwarded (while its key was looked up, its body read, its
 * reservation made) is reported as the exchange reports one that leaves later: client_aborted, 499. Unless
 * Node's parser refused the connection (bytes that are not HTTP after the body, a body cut short by a
 * half-close): then server/client-errors.ts answered it and reported the refusal, and one line is enough. That
 * answer is the socket's end with bytes written on it; a client that left ends it with nothing written, or
 * resets it. (On a connection that carried an earlier answer the two look alike, and one that half-closed
 * there goes unreported, as the parser's own refusals there do.)
 */
function departed(deps: PipelineDeps, { req, request }: Passage): void {
  const { socket } = req;
  if (socket.writableEnded && socket.bytesWritten > 0) return;
  request.outcome = "client_aborted";
  request.status = 499;
  request.end(deps.now(), performance.now());
  deps.observer.finished(request);
}

/** Answers a request the gateway will not forward with its error, and reports the refusal. */
function refuse(
  deps: PipelineDeps,
  failures: Pick<RequestFailures, "failed">,
  passage: Passage,
  error: unknown,
): void {
  const { res, request } = passage;
  const failure = asGatewayError(error);
  failures.failed(failure, { request_id: request.requestId }, "request failed");
  // After refusing a body half-way, or one that did not arrive whole, close the connection rather than read
  // (or wait for) the rest of it.
  if (failure.code === "payload_too_large" || isNotWhole(failure)) res.shouldKeepAlive = false;
  sendError(res, failure, { format: request.errorFormat });
  request.refuse(failure, deps.now(), performance.now());
  deps.observer.refused(request);
}
