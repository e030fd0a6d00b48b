// The composition root: builds the gateway from its configuration — Redis, stores, billing, metrics, the
// public listener with the forwarder, the metrics listener — and runs it until a signal stops it.
//
// Start-up, in order: every listener is bound, or none (a port taken fails the start at once); the public and
// admin listeners answer 503 (but the probes) until Redis is connected and has passed its checks
// (store/redis-startup.ts); then they serve. Redis may come up after the gateway; a Redis that fails the
// checks stops it.

import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { SecureContextOptions } from "node:tls";
import { adminHandler } from "./admin/admin-server.js";
import { AdminCredentials } from "./admin/credentials.js";
import { Authenticator } from "./auth/authenticator.js";
import { PeriodCalendar } from "./billing/periods.js";
import { Pricing } from "./billing/pricing.js";
import { ReservationKeeper } from "./billing/reservation-keeper.js";
import { SettlementQueue } from "./billing/settlement-queue.js";
import { ConfigError } from "./config/config-error.js";
import type { LoadedConfig } from "./config/load.js";
import type { Config } from "./config/schema.js";
import { GatewayError } from "./errors.js";
import { createLogger, type Logger } from "./observability/logger.js";
import { Metrics, type UpstreamFailure } from "./observability/metrics.js";
import { metricsHandler } from "./observability/metrics-server.js";
import { logFinished, logRefused } from "./observability/request-log.js";
import { EndpointTable } from "./proxy/endpoints.js";
import type { FinishedRequest, Outcome } from "./proxy/exchange.js";
import { createForwarder } from "./proxy/forwarder.js";
import { InFlight } from "./proxy/in-flight.js";
import { probeUpstream } from "./proxy/upstream-probe.js";
import { answerClientErrors } from "./server/client-errors.js";
import type { GatewayContext } from "./server/context.js";
import { bindAll, type Listener } from "./server/listeners.js";
import { createPublicHandler } from "./server/public-server.js";
import { serveWhileStarting, startingAdminHandler, startingPublicHandler } from "./server/starting.js";
import { readTlsFiles, type TlsFiles, watchTlsFiles } from "./server/tls-files.js";
import { TransportSecurity } from "./server/transport-security.js";
import { AccountService } from "./services/accounts.js";
import { buildServiceContext } from "./services/context.js";
import { KeyService } from "./services/keys.js";
import { AccountStore } from "./store/account-store.js";
import { BillingStore } from "./store/billing-store.js";
import { KeyStore } from "./store/key-store.js";
import type { RedisClient } from "./store/redis.js";
import { closeRedis, createRedis, describeRedis } from "./store/redis.js";
import { RedisKeys } from "./store/redis-keys.js";
import { startRedis } from "./store/redis-startup.js";

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
}

export interface Gateway {
  /** Base URL of the public listener, e.g. http://127.0.0.1:8080 */
  url: string;
  /** Base URL of the metrics listener, or null with metrics.enabled off. */
  metricsUrl: string | null;
  /** Base URL of the admin listener, or null when no admin token is configured. */
  adminUrl: string | null;
  server: Server;
  redis: RedisClient;
  metrics: Metrics | null;
  settlements: SettlementQueue;
  context: GatewayContext;
  /** Resolves once Redis is connected and has passed the start-up checks: from then on requests are served. */
  serving: Promise<void>;
  /**
   * Resolves with the reason when the gateway must not run on: its Redis failed the start-up checks (it
   * persists nothing, evicts keys, is too old). Stays pending otherwise.
   */
  refused: Promise<GatewayError>;
  /** Resolves once every forwarded request has finished and every settlement is written to Redis. */
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

const READINESS_TIMEOUT_MS = 1000;
/** How long requests aborted at the end of a drain get to finish their billing. */
const ABORT_GRACE_MS = 5000;
const SETTLEMENT_FLUSH_MS = 10_000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

const FAILURE_OF: Partial<Record<Outcome, UpstreamFailure>> = {
  upstream_unavailable: "refused",
  upstream_timeout: "timeout",
  upstream_reset: "reset",
};

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { config } = options;
  const now = options.now ?? Date.now;
  const logger = options.logger ?? createLogger(config.logging.level);
  const origin = options.origin ?? (() => "the configuration");
  const { certFile, keyFile } = config.tls;
  const tlsFiles = certFile && keyFile ? { certFile, keyFile } : null;
  // Read before anything starts, so that a certificate that does not load leaves nothing to stop.
  const tlsOptions = tlsFiles ? loadTls(tlsFiles, origin) : null;
  // Connected once the listeners are bound (below); until it is connected and checked, requests get 503.
  const redis = createRedis(config.redis, "gateway");
  let redisChecked = () => false;

  const inFlight = new InFlight();
  let draining = false;
  let settlements: SettlementQueue | undefined;
  const metrics: Metrics | null = config.metrics.enabled
    ? new Metrics(config.metrics, {
        inFlight: () => inFlight.size,
        settlementsPending: () => settlements?.waitingForRetry ?? 0,
        redisUp: () => redis.status === "ready",
        now,
      })
    : null;
  const observeRedis = metrics
    ? (operation: string, seconds: number) => metrics.redisOperation(operation, seconds)
    : undefined;

  const redisKeys = new RedisKeys(config.redis.prefix);
  const keys = new KeyStore(redis, redisKeys, observeRedis);
  const accounts = new AccountStore(redis, redisKeys);
  const billing = new BillingStore(
    redis,
    redisKeys,
    {
      ...config.billing,
      requestLogMaxPerKey: config.requestLog.maxPerKey,
      requestLogRetentionDays: config.requestLog.retentionDays,
    },
    observeRedis,
  );
  const calendar = new PeriodCalendar(config.billing.timezone);
  const authenticator = new Authenticator(keys, { acceptXApiKey: config.auth.acceptXApiKey });

  settlements = new SettlementQueue(billing, {
    settled: (settlement, result) => {
      if (result.balance === undefined) return;
      const { ref, keyName, input } = settlement;
      const resetAt = input.periods[result.period ?? "month"].end;
      const { balance, budget, spent } = result;
      if (keyName === null) metrics?.balance(ref.accountId, balance);
      else metrics?.settled(ref.accountId, ref.keyId, keyName, balance, budget ?? null, spent ?? 0, resetAt);
    },
    hookFailed: (hook, error) => logger.error({ hook, err: error }, "a settlement hook failed"),
    retrying: (settlement, error) =>
      logger.warn(
        { reservation_id: settlement.input.reservationId, err: (error as Error).message },
        "settlement delayed; will retry",
      ),
    failed: (settlement, error) => {
      metrics?.settlementFailed();
      // Everything reconciliation needs, but not the request-log entry with bodies: that copy exists for the
      // key's recent-requests list, and bodies reach stdout only under logging.bodies (the request line).
      const { logEntryWithBodies: _, ...input } = settlement.input;
      logger.error(
        { settlement: { ...input, ...settlement.ref }, err: error },
        "settlement refused by Redis; recorded here for reconciliation",
      );
    },
  });
  const keeper = new ReservationKeeper(billing, config.billing.reservationTtlSeconds * 1000, now, (error) =>
    logger.warn({ err: (error as Error).message }, "could not extend reservations of running requests"),
  );
  keeper.start();

  const context: GatewayContext = {
    config,
    now,
    calendar,
    authenticator,
    keys,
    accounts,
    logger,
    readiness: async () => {
      if (draining) return "shutting down";
      if (redis.status !== "ready" || !redisChecked()) return "redis unavailable";
      try {
        await Promise.race([
          redis.ping(),
          new Promise((_, reject) => setTimeout(reject, READINESS_TIMEOUT_MS, new Error("timeout")).unref()),
        ]);
        return null;
      } catch {
        return "redis unavailable";
      }
    },
    refused: (code, status, model) => metrics?.refused(code, status, model),
  };

  const finished = (request: FinishedRequest) => {
    logFinished(logger, request);
    metrics?.finished({
      model: request.model,
      status: request.status,
      accountId: request.accountId,
      keyId: request.keyId,
      keyName: request.keyName,
      promptTokens: request.promptTokens,
      completionTokens: request.completionTokens,
      cost: request.cost,
      estimated: request.estimated,
      usageRejected: request.usageRejected,
      overage: request.overage,
      latencySeconds: request.latencyMs / 1000,
      upstreamTtfbSeconds: request.upstreamTtfbMs === null ? null : request.upstreamTtfbMs / 1000,
      overheadSeconds: request.gatewayMs / 1000,
    });
    const failure =
      FAILURE_OF[request.outcome] ??
      (request.status >= 500 && request.upstreamTtfbMs !== null ? "5xx" : null);
    if (failure) metrics?.upstreamFailure(failure);
    // The gateway answered these itself, with a code of the error table.
    if (request.outcome === "upstream_unavailable" || request.outcome === "upstream_timeout") {
      metrics?.answeredWithError(request.outcome);
    }
  };

  const proxy = createForwarder({
    config,
    inFlight,
    now,
    calendar,
    settlements,
    keeper,
    authenticator,
    billing,
    pricing: new Pricing(config.pricing),
    endpoints: new EndpointTable(config.endpoints),
    logger,
    finished,
    refused: (request) => {
      logRefused(logger, request);
      metrics?.refused(request.code, request.status, request.model);
    },
    expiredReservations: (count) => {
      metrics?.expiredReservations(count);
      logger.warn({ count }, "released reservations that expired unsettled");
    },
  });

  const handler = createPublicHandler(context, proxy.forward, new TransportSecurity(config.security));
  // Created without a request handler: serveWhileStarting below gives them one once every listener is bound.
  const server: Server = tlsOptions ? createHttpsServer(tlsOptions) : createServer();
  server.on(
    "clientError",
    answerClientErrors(logger, (code, status) => metrics?.refused(code, status, null)),
  );
  const metricsServer = metrics ? createServer() : null;
  const adminServer = config.admin.token ? createServer() : null;

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
    settlements.close();
    proxy.close();
    closeRedis(redis);
    throw error;
  }
  if (metricsServer && metrics) metricsServer.on("request", metricsHandler(metrics.registry, config.metrics));
  const openPublic = serveWhileStarting(server, startingPublicHandler(handler), handler);

  let openAdmin = () => {};
  if (adminServer && config.admin.token) {
    const services = buildServiceContext(redis, {
      prefix: config.redis.prefix,
      timezone: config.billing.timezone,
      now,
    });
    const running = adminHandler({
      credentials: new AdminCredentials(config.admin.token, services.accounts),
      services: {
        accounts: new AccountService(services),
        keys: new KeyService(services),
        calendar,
        now,
        balanceChanged: (accountId, balance) => metrics?.balance(accountId, balance),
      },
      logger,
    });
    openAdmin = serveWhileStarting(adminServer, startingAdminHandler(), running);
  } else {
    logger.info("admin API and dashboard disabled: set admin.token (or TUNNEL_ADMIN_TOKEN) to enable them");
  }

  const stopWatchingTls = tlsFiles
    ? watchTlsFiles(
        tlsFiles,
        (options) => {
          (server as HttpsServer).setSecureContext(options);
          logger.info({ cert: tlsFiles.certFile }, "TLS certificate reloaded");
        },
        (error) =>
          logger.error(
            { err: error.message, cert: tlsFiles.certFile },
            "TLS files changed but do not load; keeping the current ones",
          ),
      )
    : () => {};

  const startup = startRedis(redis, {
    where: describeRedis(config.redis),
    logger,
    now,
    checks: config.redis,
    serve: () => {
      openPublic();
      openAdmin();
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
    settlements,
    context,
    serving: startup.serving,
    refused: startup.refused,
    async settled(timeoutMs = 10_000) {
      await inFlight.idle();
      await settlements.flush(timeoutMs);
    },
    async close(drainMs = config.shutdown.drainSeconds * 1000) {
      if (draining) return;
      draining = true;
      proxy.stopForwarding();
      stopWatchingTls();
      probing.abort();
      // Keep-alive connections close after the answer they are busy with; idle ones now and while draining.
      server.prependListener("request", (_req, res) => {
        res.shouldKeepAlive = false;
      });
      server.close();
      server.closeIdleConnections();
      const closeIdle = setInterval(() => server.closeIdleConnections(), 250);
      const drained = await Promise.race([
        inFlight.idle().then(() => true),
        delay(drainMs).then(() => false),
      ]);
      if (!drained) {
        logger.warn({ running: inFlight.size }, "drain time is up: aborting the requests still running");
        proxy.abortRunning();
        await Promise.race([inFlight.idle(), delay(ABORT_GRACE_MS)]);
      }
      clearInterval(closeIdle);
      server.closeAllConnections();
      keeper.stop();
      const unsettled = await settlements.flush(SETTLEMENT_FLUSH_MS);
      if (unsettled > 0) logger.error({ unsettled }, "settlements could not be written before exiting");
      settlements.close();
      proxy.close();
      metricsServer?.close();
      metricsServer?.closeAllConnections();
      adminServer?.close();
      adminServer?.closeAllConnections();
      startup.stop();
      closeRedis(redis);
    },
    abortRunning() {
      proxy.abortRunning();
    },
  };
}

/** The certificate and key, or a configuration error naming the settings (not a bug's internal_error). */
function loadTls(files: TlsFiles, origin: (setting: string) => string): SecureContextOptions {
  try {
    return readTlsFiles(files);
  } catch (error) {
    throw new ConfigError(
      `cannot load the TLS certificate and key (tls.certFile ${files.certFile} from ${origin("tls.certFile")}, ` +
        `tls.keyFile ${files.keyFile} from ${origin("tls.keyFile")}): ${(error as Error).message}`,
    );
  }
}

function baseUrl(scheme: string, host: string, server: Server): string {
  const { port } = server.address() as AddressInfo;
  return `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * Runs the gateway until SIGTERM or SIGINT, then shuts it down gracefully (see Gateway.close); a second
 * signal during the drain aborts what is still running at once. Throws, with every listener closed, when a
 * listener cannot bind or Redis fails the start-up checks.
 */
export async function runGateway(loaded: LoadedConfig): Promise<void> {
  const { config, origins } = loaded;
  const logger = createLogger(config.logging.level);
  const gateway = await startGateway({ config, logger, origin: (setting) => origins.of(setting.split(".")) });
  logger.info(
    {
      url: gateway.url,
      metrics: gateway.metricsUrl && `${gateway.metricsUrl}/metrics`,
      admin: gateway.adminUrl,
      upstream: config.upstream.url,
      redis: describeRedis(config.redis),
    },
    "tunnel-gateway listening",
  );
  const stop = await Promise.race([
    new Promise<NodeJS.Signals>((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    }),
    gateway.refused,
  ]);
  if (stop instanceof GatewayError) {
    // Nothing was served: requests are held back until Redis passes the checks.
    await gateway.close(0);
    throw stop;
  }
  logger.info(
    { signal: stop, drain_seconds: config.shutdown.drainSeconds },
    "shutting down: draining requests in flight",
  );
  const abort = (again: NodeJS.Signals) => {
    logger.warn({ signal: again }, "second signal: aborting the requests still running");
    gateway.abortRunning();
  };
  process.once("SIGTERM", abort);
  process.once("SIGINT", abort);
  await gateway.close();
  logger.info("stopped");
}
