// A graceful shutdown of the public listener and the requests it carries: readiness turns 503 at once (the
// caller sets it), no new connections or forwards, keep-alive connections close after the answer they are
// busy with, requests in flight get the drain time to finish, then the rest are aborted — each billed for
// what it produced — and get a grace period to settle.

import type { Server } from "node:http";
import type { Logger } from "pino";
import { timerDelay } from "../core/timer-delay.js";
import type { RequestTracker } from "../proxy/request-tracker.js";

/** How long requests aborted at the end of a drain get to finish their billing. */
const ABORT_GRACE_MS = 5000;
const CLOSE_IDLE_EVERY_MS = 250;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, timerDelay(ms)).unref());
}

/** Drains `server` and the requests `tracker` holds; resolves once none is left running (or the grace ended). */
export async function drain(
  server: Server,
  tracker: Pick<RequestTracker, "idle" | "abortAll" | "size">,
  drainMs: number,
  logger: Logger,
): Promise<void> {
  server.prependListener("request", (_req, res) => {
    res.shouldKeepAlive = false;
  });
  server.close();
  server.closeIdleConnections();
  const closeIdle = setInterval(() => server.closeIdleConnections(), CLOSE_IDLE_EVERY_MS);
  const drained = await Promise.race([tracker.idle().then(() => true), delay(drainMs).then(() => false)]);
  if (!drained) {
    logger.warn({ running: tracker.size }, "drain time is up: aborting the requests still running");
    tracker.abortAll();
    await Promise.race([tracker.idle(), delay(ABORT_GRACE_MS)]);
  }
  clearInterval(closeIdle);
  server.closeAllConnections();
}
