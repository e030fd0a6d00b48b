// The public listener's request handler: assigns the request id, answers the local routes, and hands every
// other request to the request path (proxy/pipeline.ts). Routing is one map lookup on the path, and two string comparisons for the
// caller's routes under /v1/requests/ and /v1/usage; nothing is compiled per request.

import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import { asGatewayError, GatewayError } from "../core/errors.js";
import { GatewayRequest } from "../core/request.js";
import { sendError } from "../http/respond.js";
import { pathOf } from "../http/url-path.js";
import type { RequestObserver } from "../observability/observer.js";
import { RequestFailures } from "../observability/request-failures.js";
import type { Forwarder } from "../proxy/pipeline.js";
import { callerRoute } from "./caller-routes.js";
import { LOCAL_METHODS, LOCAL_ROUTES, type LocalRoute, type LocalRouteDeps } from "./local-routes.js";
import { requestIdFor } from "./request-id.js";
import type { TransportSecurity } from "./transport-security.js";

/** What the listener uses besides the forwarder: the local routes' reads, and where refusals are reported. */
export interface PublicDeps extends LocalRouteDeps {
  observer: Pick<RequestObserver, "refused">;
  logger: Logger;
  /** Wall clock (ms). */
  now(): number;
  /** How a 5xx of its own is logged: once per Redis outage, per request for a bug (the replica's one). */
  failures?: Pick<RequestFailures, "failed">;
}

export function createPublicHandler(
  ctx: PublicDeps,
  forward: Forwarder,
  security: TransportSecurity,
): RequestListener {
  const failures = ctx.failures ?? new RequestFailures(ctx.logger);
  return (req, res) => {
    const arrivedAt = performance.now();
    const requestId = requestIdFor(req.headers["x-request-id"]);
    res.setHeader("x-request-id", requestId);
    const path = pathOf(req.url);
    const secure = security.isSecure(req);
    if (secure && security.hsts) res.setHeader("strict-transport-security", security.hsts);
    if (security.refuses(path, secure)) {
      refusePlainHttp(req, res, ctx, requestId, path, arrivedAt);
      return;
    }
    const route = LOCAL_ROUTES.get(path) ?? callerRoute(path);
    if (route) answerLocally(route, req, res, ctx, failures, requestId, path, arrivedAt);
    else forward(req, res, requestId, arrivedAt, path, secure);
  };
}

/** Refused before anything else, the key unread: it crossed the network in clear text and must be replaced. */
function refusePlainHttp(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: PublicDeps,
  requestId: string,
  path: string,
  arrivedAt: number,
) {
  const refusal = new GatewayError(
    "https_required",
    "This gateway only accepts HTTPS. Resend the request over https://, and treat a key sent over plain HTTP as exposed.",
  );
  res.shouldKeepAlive = false;
  refuse(refusal, req, res, ctx, requestId, path, arrivedAt);
}

function answerLocally(
  route: LocalRoute,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: PublicDeps,
  failures: Pick<RequestFailures, "failed">,
  requestId: string,
  path: string,
  arrivedAt: number,
): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    const refusal = new GatewayError("method_not_allowed", `${req.method} is not allowed here; use GET`);
    refuse(refusal, req, res, ctx, requestId, path, arrivedAt, LOCAL_METHODS);
    return;
  }
  Promise.resolve()
    .then(() => route(req, res, ctx))
    .catch((error: unknown) => {
      const failure = asGatewayError(error);
      failures.failed(failure, { request_id: requestId, path }, "local route failed");
      refuse(failure, req, res, ctx, requestId, path, arrivedAt);
    });
}

/** Answers with an error of the table and reports the refusal. */
function refuse(
  refusal: GatewayError,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: PublicDeps,
  requestId: string,
  path: string,
  arrivedAt: number,
  allow?: string,
): void {
  sendError(res, refusal, allow ? { allow } : {});
  const request = new GatewayRequest(requestId, req.method ?? null, path, arrivedAt);
  request.refuse(refusal, ctx.now(), performance.now());
  ctx.observer.refused(request);
}
