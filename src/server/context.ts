// Everything a request needs on the public port, built once at start-up by gateway.ts.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Authenticator } from "../auth/authenticator.js";
import type { PeriodCalendar } from "../billing/periods.js";
import type { Config } from "../config/schema.js";
import type { ErrorCode } from "../errors.js";
import type { Logger } from "../observability/logger.js";
import type { AccountStore } from "../store/account-store.js";
import type { KeyStore } from "../store/key-store.js";

/** Handles a request that the gateway does not answer itself. */
export type Forwarder = (
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  arrivedAt: number,
  /** Whether the request came over HTTPS (the socket, or a trusted proxy's X-Forwarded-Proto). */
  secure: boolean,
) => void;

export interface GatewayContext {
  config: Config;
  /** Wall clock (ms) for expiry, periods and reservations; tests inject their own. */
  now: () => number;
  calendar: PeriodCalendar;
  authenticator: Authenticator;
  keys: KeyStore;
  accounts: AccountStore;
  logger: Logger;
  /** null when ready to take traffic, else why not. */
  readiness: () => Promise<string | null>;
  /** A request the gateway refused with an error of the table (for the metrics). */
  refused: (code: ErrorCode, status: number, model: string | null) => void;
}
