// What starting a gateway takes (GatewayOptions) and what it gives back (Gateway): the handle run-gateway.ts,
// the demo and the tests hold to serve, drain and stop it (gateway.ts starts it).

import type { Server } from "node:http";
import type { Logger } from "pino";
import type { DeliveryWorker } from "../alerts/delivery-worker.js";
import type { LeaseService } from "../billing/lease-service.js";
import type { Config } from "../config/schema.js";
import type { GatewayError } from "../core/errors.js";
import type { GatewayMetrics } from "../observability/gateway-metrics.js";
import type { RedisClient } from "../store/connection/redis.js";

export interface GatewayOptions {
  config: Config;
  /** Wall clock in ms; tests inject their own. */
  now?: () => number;
  logger?: Logger;
  /**
   * Where a setting ("metrics.port") came from — "--metrics-port", "TUNNEL_METRICS_PORT", a file and line —
   * for the message of a listener that cannot bind; loadConfig's origins.
   */
  origin?: (setting: string) => string;
  /**
   * Where the operator's webhook secrets (alerts.webhooks[].secretEnv) and the identity providers' client
   * secrets (signIn.providers[].clientSecretEnv) are read from; process.env by default.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface Gateway {
  /** Base URL of the public listener, e.g. http://127.0.0.1:8080 */
  url: string;
  /** Base URL of the metrics listener, or null with metrics.enabled off. */
  metricsUrl: string | null;
  /** Base URL of the admin listener, or null when it is off (no admin token, nobody can sign in). */
  adminUrl: string | null;
  server: Server;
  redis: RedisClient;
  metrics: GatewayMetrics;
  /** The replica's admission leases; null where they are off. */
  leases: LeaseService | null;
  /** The replica's alert delivery worker (started once Redis serves). */
  alerts: DeliveryWorker;
  /**
   * The replica's re-checks with the identity providers (started once Redis serves), or null where the admin
   * listener is off; `runDue` checks what is due on the gateway's clock now.
   */
  providerChecks: { runDue(): Promise<number> } | null;
  /** Resolves once Redis is connected and has passed the start-up checks: from then on requests are served. */
  serving: Promise<void>;
  /**
   * Resolves with the reason when the gateway must not run on: its Redis failed the start-up checks (it
   * persists nothing, evicts keys, is too old). Stays pending otherwise.
   */
  refused: Promise<GatewayError>;
  /**
   * Resolves once every forwarded request has finished, every settlement is written to Redis and the
   * replica's admission leases are given back (nothing stays reserved); new requests take new leases.
   */
  settled(timeoutMs?: number): Promise<void>;
  /**
   * Shuts down: readiness turns 503 at once, no new connections or forwards, requests in flight get
   * `drainMs` (shutdown.drainSeconds by default) to finish, then the rest are aborted and billed for what
   * they produced; pending settlements are written; listeners and Redis are closed.
   */
  close(drainMs?: number): Promise<void>;
  /** Ends the drain now: aborts whatever is still running (a second signal). */
  abortRunning(): void;
}
