// Everything the public port's request path needs, built once at start-up by gateway.ts and shared by the
// listener, the local routes, the forwarder and each exchange.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { Authenticator } from "../auth/authenticator.js";
import type { LeaseService } from "../billing/lease-service.js";
import type { Pricing } from "../billing/pricing.js";
import type { SettlementQueue } from "../billing/settlement-queue.js";
import type { Config } from "../config/schema.js";
import type { RequestObserver } from "../observability/observer.js";
import type { Stores } from "../store/stores.js";
import type { EndpointTable } from "./endpoints.js";
import type { RequestTracker } from "./request-tracker.js";

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
  /** The stores, the billing calendar and the clock, shared with the admin API. */
  stores: Stores;
  authenticator: Authenticator;
  pricing: Pricing;
  endpoints: EndpointTable;
  /** What is in flight (shutdown, the keeper and the gauge read it). */
  tracker: RequestTracker;
  settlements: SettlementQueue;
  /** Admission leases; null where they are off (docs/leases.md). */
  leases: LeaseService | null;
  observer: RequestObserver;
  logger: Logger;
  /** null when ready to take traffic, else why not. */
  readiness: () => Promise<string | null>;
}
