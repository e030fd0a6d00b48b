// The composition root: builds the gateway from its configuration — Redis, the shared service context, the
// observer and metrics, billing, the request path, the listeners — and stops it. It wires; it decides
// nothing itself.
//
// Start-up, in order: every listener is bound, or none (a port taken fails the start at once); the public and
// admin listeners answer 503 (but the probes) until Redis is connected and has passed its checks
// (store/redis-startup.ts); then they serve. Redis may come up after the gateway; a Redis that fails the
// checks stops it.

import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import { createDeliveryWorker } from "./alerts/create-worker.js";
import type { DeliveryWorker } from "./alerts/delivery-worker.js";
import { operatorEndpoints } from "./alerts/endpoints.js";
import { Authenticator } from "./auth/authenticator.js";
import { BooksWatch } from "./billing/books-watch.js";
import { createLeases, type LeaseService } from "./billing/lease-service.js";
import { Pricing } from "./billing/pricing.js";
import { RequestBilling } from "./billing/request-billing.js";
import { ReservationKeeper } from "./billing/reservation-keeper.js";
import { settlementChannels } from "./billing/settlement-channels.js";
import { SettlementQueue } from "./billing/settlement-queue.js";
import type { Config } from "./config/schema.js";
import { GatewayEvents } from "./core/channels.js";
import type { GatewayError } from "./core/errors.js";
import { version } from "./core/version.js";
import { providerSecrets as oidcSecrets } from "./identity/provider-secrets.js";
import { identitySettings, signInConfigured } from "./identity/settings.js";
import { observeGatewayEvents } from "./observability/gateway-channels.js";
import { type GatewayMetrics, NO_METRICS } from "./observability/gateway-metrics.js";
import { createLogger } from "./observability/logger.js";
import { Metrics } from "./observability/metrics.js";
import { metricsHandler } from "./observability/metrics-server.js";
import { createObserver } from "./observability/observer.js";
import { RequestFailures } from "./observability/request-failures.js";
import { ScriptErrors } from "./observability/script-errors.js";
import { startTelemetry } from "./observability/telemetry.js";
import { EndpointTable } from "./proxy/endpoints.js";
import { createFairSharing } from "./proxy/fair-sharing.js";
import { createPipeline } from "./proxy/pipeline.js";
import { RequestTracker } from "./proxy/request-tracker.js";
import { probeUpstream } from "./proxy/upstream-probe.js";
import { answerClientErrors } from "./server/client-errors.js";
import { bindAll, type Listener } from "./server/listeners.js";
import { createPublicHandler } from "./server/public-server.js";
import { readinessOf } from "./server/readiness.js";
import { drain } from "./server/shutdown.js";
import { serveWhileStarting, startingAdminHandler, startingPublicHandler } from "./server/starting.js";
import { loadTls, watchTls } from "./server/tls-files.js";
import { TransportSecurity } from "./server/transport-security.js";
import { closeRedis, createRedis, describeRedis, type RedisClient } from "./store/redis.js";
import { startRedis } from "./store/redis-startup.js";
import { ReplicaAcks } from "./store/replica-acks.js";
import { observeScriptErrors } from "./store/scripts.js";
import { openStores } from "./store/stores.js";

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

const SETTLEMENT_FLUSH_MS = 10_000;

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { config } = options;
  const now = options.now ?? Date.now;
  const logger = options.logger ?? createLogger(config.logging.level);
  const origin = options.origin ?? (() => "the configuration");
  const { certFile, keyFile } = config.tls;
  const tlsFiles = certFile && keyFile ? { certFile, keyFile } : null;
  // Read before anything starts, so that a certificate that does not load leaves nothing to stop.
  const tlsOptions = tlsFiles ? loadTls(tlsFiles, origin) : null;
  // The operator's webhook secrets are read before anything starts, for the same reason.
  const webhooks = operatorEndpoints(config.alerts, options.env ?? process.env);
  // And the identity providers' client secrets.
  const providerSecrets = oidcSecrets(config.signIn.providers, options.env ?? process.env);
  // OpenTelemetry, from the OTEL_* variables: started before anything else, as a value it cannot honour stops
  // the start; while they configure nothing, no module of the SDK is loaded.
  const telemetry = await startTelemetry(options.env ?? process.env, {
    logger,
    version: version(),
    upstreamUrl: config.upstream.url,
    provider: config.telemetry.genAiProvider,
    maxModelSeries: config.metrics.maxModelSeries,
  });
  // Connected once the listeners are bound (below); until it is connected and checked, requests get 503.
  const redis = createRedis(config.redis, "gateway");
  let redisChecked = () => false;
  let draining = false;

  const tracker = new RequestTracker();
  let gate: ReturnType<typeof createFairSharing>["gate"] = null;
  let settlements: SettlementQueue | undefined;
  let alerts: DeliveryWorker | undefined;
  const metrics: GatewayMetrics = config.metrics.enabled
    ? new Metrics(
        { ...config.metrics, maxInFlight: config.upstream.maxInFlight },
        {
          inFlight: () => tracker.size,
          runningKeys: () => tracker.keys(),
          settlementsPending: () => settlements?.waitingForRetry ?? 0,
          redisUp: () => redis.status === "ready",
          now,
          oldestUndeliveredAge: () => alerts?.oldestUndeliveredAgeSeconds() ?? Promise.resolve(0),
          queue: () => gate,
        },
      )
    : NO_METRICS;
  // Every script Redis refuses, whoever called it, is counted and logged (once a minute per kind).
  const scriptErrors = new ScriptErrors(logger, metrics, () => performance.now());
  observeScriptErrors(redis, (script, error) => scriptErrors.report(script, error));
  const failures = new RequestFailures(logger);
  // What the lower layers tell (core/channels.ts), heard by the metrics and the observer until close.
  const observer = createObserver(
    logger,
    metrics,
    { logBodies: config.logging.bodies ? config.logging.maxBodyBytes : null },
    telemetry,
  );
  const events = new GatewayEvents();
  const unobserveEvents = observeGatewayEvents(events, {
    metrics: config.metrics.enabled ? metrics : null,
    observer,
    logger,
  });
  const replicaAcks =
    config.redis.settlementReplicas === 0
      ? null
      : new ReplicaAcks(redis, {
          replicas: config.redis.settlementReplicas,
          timeoutMs: config.redis.settlementReplicaTimeoutMs,
        });
  const stores = openStores(redis, {
    prefix: config.redis.prefix,
    timezone: config.billing.timezone,
    now,
    billing: {
      ...config.billing,
      requestLogMaxPerKey: config.requestLog.maxPerKey,
      requestLogRetentionDays: config.requestLog.retentionDays,
    },
    observe: events,
    events: {
      keepMs: config.alerts.eventRetentionDays * 86_400_000,
      thresholds: config.alerts.thresholds,
    },
    replicaAcks,
  });
  alerts = createDeliveryWorker(config, { stores, operatorEndpoints: webhooks, metrics, logger, now });
  const worker = alerts;
  const leases = createLeases(config.billing, { redis, stores, now, logger });
  const booksWatch = new BooksWatch({
    billing: stores.billing,
    pending: { of: (accountId) => queue.unsettled.of(accountId) },
    drift: (report) => observer.drift(report),
    onError: (error) => logger.debug({ err: (error as Error).message }, "the books could not be checked"),
  });
  // The lease book's mirror first, then what is told of the settlement (settlement.* channels).
  const hooks = settlementChannels(events);
  const chained = leases ? leases.settlementHooks(hooks) : hooks;
  const queue = new SettlementQueue(stores.billing, {
    ...chained,
    settled: (settlement, result) => {
      booksWatch.settled(settlement, result);
      chained.settled?.(settlement, result);
    },
  });
  settlements = queue;
  const keeper = new ReservationKeeper(
    stores.billing,
    tracker,
    config.billing.reservationTtlSeconds * 1000,
    now,
    (error) =>
      logger.warn({ err: (error as Error).message }, "could not extend reservations of running requests"),
  );
  keeper.start();

  const fairSharing = createFairSharing(config, { stores, now, logger });
  gate = fairSharing.gate;
  const authenticator = new Authenticator(stores.keys, { acceptXApiKey: config.auth.acceptXApiKey });
  const billing = new RequestBilling({
    pricing: new Pricing(config.pricing),
    maxPromptTokens: config.billing.maxPromptTokens,
    store: stores.billing,
    leases,
    settlements,
    rules: {
      calendar: stores.calendar,
      estimate: config.estimate,
      overage: config.billing.overage,
      logBodyBytes: config.requestLog.maxBodyBytes,
    },
    reservationTtlMs: config.billing.reservationTtlSeconds * 1000,
    now,
    events,
    logger,
  });
  const proxy = createPipeline({
    config,
    authenticator,
    endpoints: new EndpointTable(config.endpoints),
    billing,
    tracker,
    observer,
    tracing: telemetry.tracing,
    logger,
    now,
    gate: fairSharing.gate,
    sharing: fairSharing.sharing,
    failures,
  });
  const transport = new TransportSecurity(config.security);
  const handler = createPublicHandler(
    {
      authenticator,
      stores,
      readiness: readinessOf(redis, { draining: () => draining, checked: () => redisChecked() }),
      pending: queue.unsettled,
      observer,
      logger,
      now,
      failures,
    },
    proxy.forward,
    transport,
  );

  // Created without a request handler: serveWhileStarting below gives them one once every listener is bound.
  const server: Server = tlsOptions ? createHttpsServer(tlsOptions) : createServer();
  server.on("clientError", answerClientErrors(observer, now));
  const metricsServer = metrics.registry ? createServer() : null;
  const signIn = identitySettings(config);
  const adminServer = config.admin.token || signInConfigured(signIn) ? createServer() : null;
  // The admin API, the dashboard's assets, its schemas and the sign-in (openid-client, argon2) are loaded only
  // where the admin listener opens: a sidecar without one holds none of them (docs/benchmarks.md, memory).
  const adminModules = adminServer
    ? await Promise.all([
        import("./admin/admin-server.js"),
        import("./identity/identity.js"),
        import("./observability/identity-events.js"),
      ])
    : null;
  const listener = (role: string, listening: Server, section: "listen" | "metrics" | "admin"): Listener => ({
    role,
    server: listening,
    host: config[section].host,
    port: config[section].port,
    setting: { host: `${section}.host`, port: `${section}.port` },
    origin,
  });
  try {
    await bindAll([
      listener("the public API", server, "listen"),
      ...(metricsServer ? [listener("metrics", metricsServer, "metrics")] : []),
      ...(adminServer ? [listener("the admin API", adminServer, "admin")] : []),
    ]);
  } catch (error) {
    keeper.stop();
    gate?.close();
    void leases?.stop(0);
    settlements.close();
    proxy.close();
    replicaAcks?.close();
    closeRedis(redis);
    unobserveEvents();
    void telemetry.shutdown();
    throw error;
  }
  if (metricsServer && metrics.registry)
    metricsServer.on("request", metricsHandler(metrics.registry, config.metrics));
  const openPublic = serveWhileStarting(server, startingPublicHandler(handler), handler);
  let openAdmin = () => {};
  let warmUpSignIn = () => {};
  let stopSignIn = async () => {};
  let providerChecks: Gateway["providerChecks"] = null;
  if (adminServer && adminModules) {
    const [{ adminHandler }, { buildIdentity }, { observeIdentityEvents }] = adminModules;
    const identity = buildIdentity(stores, signIn, {
      adminToken: config.admin.token,
      logger,
      providerSecrets,
    });
    const unobserve = observeIdentityEvents(identity.events, logger, metrics);
    providerChecks = identity.checks;
    warmUpSignIn = () => {
      identity.oidc.warmUp();
      identity.checks.start();
    };
    stopSignIn = async () => {
      await identity.checks.stop();
      unobserve();
    };
    const admin = adminHandler({
      identity,
      clientAddress: (req) => transport.clientAddress(req),
      stores,
      balanceChanged: (accountId, balance) => metrics.balance(accountId, balance),
      queue: fairSharing.probe,
      alerts: {
        allowHttp: config.alerts.allowHttp,
        operatorEndpoints: webhooks,
        sender: worker.sender,
        thresholds: config.alerts.thresholds,
      },
      logger,
      failures,
    });
    openAdmin = serveWhileStarting(adminServer, startingAdminHandler(), admin);
  } else {
    logger.info(
      "admin API and dashboard disabled: set admin.token (TUNNEL_ADMIN_TOKEN), or let people sign in (signIn.local.enabled, signIn.providers), to enable them",
    );
  }

  const stopWatchingTls = tlsFiles ? watchTls(tlsFiles, server as HttpsServer, logger) : () => {};
  const startup = startRedis(redis, {
    where: describeRedis(config.redis),
    logger,
    now,
    checks: config.redis,
    replication: {
      failover: config.redis.cluster !== undefined || config.redis.sentinel !== undefined,
      settlementReplicas: config.redis.settlementReplicas,
    },
    serve: () => {
      openPublic();
      openAdmin();
      warmUpSignIn();
      worker.start();
      booksWatch.start(config.billing.driftCheckSeconds * 1000);
      leases
        ?.start()
        .catch((error: unknown) =>
          logger.warn({ err: (error as Error).message }, "admission leases could not start; they are off"),
        );
    },
  });
  redisChecked = () => startup.checked;
  const probing = new AbortController();
  void probeUpstream(config.upstream, logger, probing.signal);

  return {
    url: baseUrl(tlsFiles ? "https" : "http", config.listen.host, server),
    metricsUrl: metricsServer ? baseUrl("http", config.metrics.host, metricsServer) : null,
    adminUrl: adminServer ? baseUrl("http", config.admin.host, adminServer) : null,
    server,
    redis,
    metrics,
    leases,
    alerts: worker,
    providerChecks,
    serving: startup.serving,
    refused: startup.refused,
    async settled(timeoutMs = 10_000) {
      await tracker.idle();
      await settlements.flush(timeoutMs);
      leases?.book.releaseAll();
      await settlements.flush(timeoutMs);
      await leases?.book.idle(timeoutMs);
    },
    async close(drainMs = config.shutdown.drainSeconds * 1000) {
      if (draining) return;
      draining = true;
      proxy.stopForwarding();
      stopWatchingTls();
      probing.abort();
      await drain(server, tracker, drainMs, logger);
      keeper.stop();
      // Leases are given back: what requests do not hold at once, the rest as their settlements land.
      leases?.book.releaseAll();
      const unsettled = await settlements.flush(SETTLEMENT_FLUSH_MS);
      await leases?.stop(SETTLEMENT_FLUSH_MS);
      if (unsettled > 0) {
        logger.error(
          { unsettled },
          "settlements could not be written, or acknowledged by a replica, before exiting",
        );
      }
      settlements.close();
      booksWatch.stop();
      proxy.close();
      gate?.close();
      for (const other of [metricsServer, adminServer]) {
        other?.close();
        other?.closeAllConnections();
      }
      await worker.stop();
      await stopSignIn();
      startup.stop();
      replicaAcks?.close();
      closeRedis(redis);
      unobserveEvents();
      // Last: the spans and metrics of the requests drained above go out before the process ends.
      await telemetry.shutdown();
    },
    abortRunning() {
      tracker.abortAll();
    },
  };
}

function baseUrl(scheme: string, host: string, server: Server): string {
  const { port } = server.address() as AddressInfo;
  return `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
