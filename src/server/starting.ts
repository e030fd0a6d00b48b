// What the public and admin listeners answer while the gateway starts, until its Redis is connected and has
// passed the start-up checks (store/connection/redis-checks.ts): nothing that reads or writes money runs against a
// Redis that may yet be refused for persisting nothing or evicting keys. /healthz still answers (the
// process is alive: a restart would not help) and /readyz says why the gateway is not ready.

import type { RequestListener, Server } from "node:http";
import { GatewayError } from "../core/errors.js";
import { sendError } from "../http/respond.js";
import { pathOf } from "../http/url-path.js";

const PROBES = new Set(["/healthz", "/readyz"]);

/** The public listener while starting: the probes as `running` answers them, 503 for everything else. */
export function startingPublicHandler(running: RequestListener): RequestListener {
  return (req, res) => {
    if (PROBES.has(pathOf(req.url))) running(req, res);
    else sendError(res, notYet());
  };
}

/** The admin listener while starting: 503 for everything. */
export function startingAdminHandler(): RequestListener {
  return (_req, res) => sendError(res, notYet());
}

/** Serves `starting` on `server` until the returned function is called, then `running`. */
export function serveWhileStarting(
  server: Server,
  starting: RequestListener,
  running: RequestListener,
): () => void {
  server.on("request", starting);
  return () => {
    server.off("request", starting);
    server.on("request", running);
  };
}

function notYet(): GatewayError {
  return new GatewayError(
    "service_unavailable",
    "The gateway is starting: its database is not connected and checked yet. Retry shortly.",
  );
}
