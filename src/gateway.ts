// The composition root and the gateway's lifecycle: builds the gateway from its configuration — Redis, the
// stores, the observer and metrics (subscribed to the declared events, core/channels.ts), then the parts
// under gateway/: the money side, the request path, the admin side — binds the listeners, serves once Redis
// is checked, drains and stops. It wires; it decides nothing itself.
//
// Start-up, in order: every listener is bound, or none (a port taken fails the start at once); the public and
// admin listeners answer 503 (but the probes) until Redis is connected and has passed its checks
// (store/connection/redis-startup.ts); then they serve. Redis may come up after the gateway; a Redis that fails the
// checks stops it.

import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { createDeliveryWorker } from "./alerts/create-worker.js";
import type { DeliveryWorker } from "./alerts/delivery-worker.js";
import { operatorEndpoints } from "./alerts/endpoints.js";
import type { SettlementQueue } from "./billing/settlement-queue.js";
import { GatewayEvents } from "./core/channels.js";
import { version } from "./core/version.js";
import { assembleAdminSide, loadAdminModules } from "./gateway/admin-side.js";
import type { Gateway, GatewayOptions } from "./gateway/gateway-handle.js";
import { assembleMoneySide } from "./gateway/money-side.js";
import { assembleRequestPath } from "./gateway/request-path.js";
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
import { startTelemetry } from "./observability/telemetry-start.js";
import { RequestTracker } from "./proxy/request-tracker.js";
import { createFairSharing } from "./proxy/sharing/fair-sharing.js";
import { probeUpstream } from "./proxy/upstream-probe.js";
import { answerClientErrors } from "./server/client-errors.js";
import { bindAll, type Listener } from "./server/listeners.js";
import { readinessOf } from "./server/readiness.js";
import { drain } from "./server/shutdown.js";
import { serveWhileStarting, startingPublicHandler } from "./server/starting.js";
import { loadTls, watchTls } from "./server/tls-files.js";
import { TransportSecurity } from "./server/transport-security.js";
import { closeRedis, createRedis, describeRedis } from "./store/connection/redis.js";
import { startRedis } from "./store/connection/redis-startup.js";
import { ReplicaAcks } from "./store/connection/replica-acks.js";
import { observeScriptErrors } from "./store/scripts.js";
import { openStores } from "./store/stores.js";

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
  const money = assembleMoneySide({ config, redis, stores, tracker, events, observer, logger, now });
  const { leases } = money;
  settlements = money.settlements;
  const queue = money.settlements;

  const fairSharing = createFairSharing(config, { stores, now, logger });
  gate = fairSharing.gate;
  const transport = new TransportSecurity(config.security);
  const { proxy, handler } = assembleRequestPath({
    config,
    stores,
    leases,
    settlements: queue,
    tracker,
    observer,
    events,
    fairSharing,
    tracing: telemetry.tracing,
    failures,
    transport,
    readiness: readinessOf(redis, { draining: () => draining, checked: () => redisChecked() }),
    logger,
    now,
  });

  // Created without a request handler: serveWhileStarting below gives them one once every listener is bound.
  const server: Server = tlsOptions ? createHttpsServer(tlsOptions) : createServer();
  server.on("clientError", answerClientErrors(observer, now));
  const metricsServer = metrics.registry ? createServer() : null;
  const signIn = identitySettings(config);
  const adminServer = config.admin.token || signInConfigured(signIn) ? createServer() : null;
  const adminModules = adminServer ? await loadAdminModules() : null;
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
    money.abandon();
    gate?.close();
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
  const adminSide =
    adminServer && adminModules
      ? assembleAdminSide(adminModules, adminServer, {
          config,
          signIn,
          stores,
          metrics,
          transport,
          fairSharing,
          worker,
          webhooks,
          providerSecrets,
          failures,
          logger,
        })
      : null;
  if (adminSide === null) {
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
      adminSide?.open();
      adminSide?.warmUp();
      worker.start();
      money.start(config.billing.driftCheckSeconds * 1000);
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
    providerChecks: adminSide?.providerChecks ?? null,
    serving: startup.serving,
    refused: startup.refused,
    async settled(timeoutMs = 10_000) {
      await tracker.idle();
      await money.settled(timeoutMs);
    },
    async close(drainMs = config.shutdown.drainSeconds * 1000) {
      if (draining) return;
      draining = true;
      proxy.stopForwarding();
      stopWatchingTls();
      probing.abort();
      await drain(server, tracker, drainMs, logger);
      await money.stop(SETTLEMENT_FLUSH_MS);
      proxy.close();
      gate?.close();
      for (const other of [metricsServer, adminServer]) {
        other?.close();
        other?.closeAllConnections();
      }
      await worker.stop();
      await adminSide?.stop();
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
