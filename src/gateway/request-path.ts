// The request path, assembled: the authenticator, billing's two calls (admit, settle), the pipeline of
// stages (proxy/pipeline.ts) with fair sharing where it is on, and the public listener's handler in front of
// it. It wires; it decides nothing itself.

import type { RequestListener } from "node:http";
import type { Logger } from "pino";
import { Authenticator } from "../auth/authenticator.js";
import type { LeaseService } from "../billing/lease-service.js";
import { Pricing } from "../billing/pricing.js";
import { RequestBilling } from "../billing/request-billing.js";
import type { SettlementQueue } from "../billing/settlement-queue.js";
import type { Config } from "../config/schema.js";
import type { GatewayEvents } from "../core/channels.js";
import type { RequestObserver } from "../observability/observer.js";
import type { RequestFailures } from "../observability/request-failures.js";
import type { Tracing } from "../observability/telemetry.js";
import { createPipeline, type ForwardingProxy } from "../proxy/pipeline.js";
import { EndpointTable } from "../proxy/request/endpoints.js";
import type { RequestTracker } from "../proxy/request-tracker.js";
import type { FairSharing } from "../proxy/sharing/fair-sharing.js";
import { createPublicHandler } from "../server/public-server.js";
import type { Readiness } from "../server/readiness.js";
import type { TransportSecurity } from "../server/transport-security.js";
import type { Stores } from "../store/stores.js";

export interface RequestPathParts {
  config: Config;
  stores: Stores;
  leases: LeaseService | null;
  settlements: SettlementQueue;
  tracker: RequestTracker;
  observer: RequestObserver;
  events: GatewayEvents;
  fairSharing: FairSharing;
  tracing: Tracing | null;
  failures: RequestFailures;
  transport: TransportSecurity;
  /** The public listener's readiness (/readyz). */
  readiness(): Promise<Readiness>;
  logger: Logger;
  now(): number;
}

export interface RequestPath {
  proxy: ForwardingProxy;
  /** The public listener's handler: local routes, else the pipeline. */
  handler: RequestListener;
}

export function assembleRequestPath(parts: RequestPathParts): RequestPath {
  const { config, stores, observer, logger, now, failures } = parts;
  const authenticator = new Authenticator(stores.keys, { acceptXApiKey: config.auth.acceptXApiKey });
  const billing = new RequestBilling({
    pricing: new Pricing(config.pricing),
    maxPromptTokens: config.billing.maxPromptTokens,
    store: stores.billing,
    leases: parts.leases,
    settlements: parts.settlements,
    rules: {
      calendar: stores.calendar,
      estimate: config.estimate,
      overage: config.billing.overage,
      logBodyBytes: config.requestLog.maxBodyBytes,
    },
    reservationTtlMs: config.billing.reservationTtlSeconds * 1000,
    now,
    events: parts.events,
    logger,
  });
  const proxy = createPipeline({
    config,
    authenticator,
    endpoints: new EndpointTable(config.endpoints),
    billing,
    tracker: parts.tracker,
    observer,
    tracing: parts.tracing,
    logger,
    now,
    gate: parts.fairSharing.gate,
    sharing: parts.fairSharing.sharing,
    failures,
  });
  const handler = createPublicHandler(
    {
      authenticator,
      stores,
      readiness: parts.readiness,
      pending: parts.settlements.unsettled,
      observer,
      logger,
      now,
      failures,
    },
    proxy.forward,
    parts.transport,
  );
  return { proxy, handler };
}
