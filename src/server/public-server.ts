// The public listener's request handler: assigns the request id, answers the local routes, and hands every
// other request to the forwarder. Routing is one map lookup on the path; nothing is compiled per request.

import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { asGatewayError, GatewayError } from "../errors.js";
import type { Forwarder, GatewayContext } from "./context.js";
import { LOCAL_METHODS, LOCAL_ROUTES, type LocalRoute } from "./local-routes.js";
import { requestIdFor } from "./request-id.js";
import { sendError } from "./respond.js";
import type { TransportSecurity } from "./transport-security.js";

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export function createPublicHandler(
  ctx: GatewayContext,
  forward: Forwarder,
  security: TransportSecurity,
): RequestHandler {
  return (req, res) => {
    const arrivedAt = performance.now();
    const requestId = requestIdFor(req.headers["x-request-id"]);
    res.setHeader("x-request-id", requestId);
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    const secure = security.isSecure(req);
    if (secure && security.hsts) res.setHeader("strict-transport-security", security.hsts);
    if (security.refuses(path, secure)) {
      refusePlainHttp(req, res, ctx, requestId, path);
      return;
    }
    const route = LOCAL_ROUTES.get(path);
    if (route) answerLocally(route, req, res, ctx, requestId);
    else forward(req, res, requestId, arrivedAt, secure);
  };
}

/** Refused before anything else, the key unread: it crossed the network in clear text and must be replaced. */
function refusePlainHttp(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: GatewayContext,
  requestId: string,
  path: string,
) {
  const refusal = new GatewayError(
    "https_required",
    "This gateway only accepts HTTPS. Resend the request over https://, and treat a key sent over plain HTTP as exposed.",
  );
  res.shouldKeepAlive = false;
  sendError(res, refusal);
  ctx.refused(refusal.code, refusal.status, null);
  ctx.logger.info(
    { request_id: requestId, method: req.method, path, status: refusal.status, code: refusal.code },
    "request refused",
  );
}

function answerLocally(
  route: LocalRoute,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: GatewayContext,
  requestId: string,
): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    const refusal = new GatewayError("method_not_allowed", `${req.method} is not allowed here; use GET`);
    sendError(res, refusal, { allow: LOCAL_METHODS });
    ctx.refused(refusal.code, refusal.status, null);
    return;
  }
  Promise.resolve()
    .then(() => route(req, res, ctx))
    .catch((error: unknown) => {
      const failure = asGatewayError(error);
      if (failure.status >= 500) {
        const path = (req.url ?? "/").split("?")[0];
        ctx.logger.error(
          { request_id: requestId, path, err: failure.cause ?? failure },
          "local route failed",
        );
      }
      sendError(res, failure);
      ctx.refused(failure.code, failure.status, null);
    });
}
