// The admin side, assembled: the admin API, the dashboard and the sign-in (identity/), only where the admin
// listener opens — their modules (openid-client, argon2, the dashboard's assets) are loaded only then, so a
// sidecar without one holds none of them (docs/benchmarks.md, memory). It wires; it decides nothing itself.

import type { Server } from "node:http";
import type { Logger } from "pino";
import type { DeliveryWorker } from "../alerts/delivery-worker.js";
import type { operatorEndpoints } from "../alerts/endpoints.js";
import type { Config } from "../config/schema.js";
import type { providerSecrets } from "../identity/provider-secrets.js";
import type { IdentitySettings } from "../identity/settings.js";
import type { GatewayMetrics } from "../observability/gateway-metrics.js";
import type { RequestFailures } from "../observability/request-failures.js";
import type { FairSharing } from "../proxy/sharing/fair-sharing.js";
import { serveWhileStarting, startingAdminHandler } from "../server/starting.js";
import type { TransportSecurity } from "../server/transport-security.js";
import type { Stores } from "../store/stores.js";

/** The admin side's modules, loaded before the listeners are bound (a module that fails stops the start). */
export type AdminModules = Awaited<ReturnType<typeof loadAdminModules>>;

export function loadAdminModules() {
  return Promise.all([
    import("../admin/admin-server.js"),
    import("../identity/identity.js"),
    import("../observability/identity-events.js"),
  ]);
}

export interface AdminSideParts {
  config: Config;
  signIn: IdentitySettings;
  stores: Stores;
  metrics: GatewayMetrics;
  transport: TransportSecurity;
  fairSharing: FairSharing;
  worker: DeliveryWorker;
  webhooks: ReturnType<typeof operatorEndpoints>;
  providerSecrets: ReturnType<typeof providerSecrets>;
  failures: RequestFailures;
  logger: Logger;
}

export interface AdminSide {
  /** Serves the admin listener (it answered 503 while Redis was not yet checked). */
  open(): void;
  /** Once Redis serves: the identity providers' discovery, and their re-checks. */
  warmUp(): void;
  stop(): Promise<void>;
  /** The re-checks with the identity providers; `runDue` checks what is due now. */
  providerChecks: { runDue(): Promise<number> };
}

export function assembleAdminSide(modules: AdminModules, server: Server, parts: AdminSideParts): AdminSide {
  const [{ adminHandler }, { buildIdentity }, { observeIdentityEvents }] = modules;
  const { config, stores, metrics, logger } = parts;
  const identity = buildIdentity(stores, parts.signIn, {
    adminToken: config.admin.token,
    logger,
    providerSecrets: parts.providerSecrets,
  });
  const unobserve = observeIdentityEvents(identity.events, logger, metrics);
  const admin = adminHandler({
    identity,
    clientAddress: (req) => parts.transport.clientAddress(req),
    stores,
    balanceChanged: (accountId, balance) => metrics.balance(accountId, balance),
    queue: parts.fairSharing.probe,
    alerts: {
      allowHttp: config.alerts.allowHttp,
      operatorEndpoints: parts.webhooks,
      sender: parts.worker.sender,
      thresholds: config.alerts.thresholds,
    },
    logger,
    failures: parts.failures,
  });
  return {
    open: serveWhileStarting(server, startingAdminHandler(), admin),
    warmUp() {
      identity.oidc.warmUp();
      identity.checks.start();
    },
    async stop() {
      await identity.checks.stop();
      unobserve();
    },
    providerChecks: identity.checks,
  };
}
