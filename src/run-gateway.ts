// `tunnel-gateway serve`: runs the gateway until SIGTERM or SIGINT, then shuts it down gracefully (see
// Gateway.close); a second signal during the drain aborts what is still running at once.

import type { ServingConfig } from "./config/load-in-worker.js";
import { GatewayError } from "./core/errors.js";
import { startGateway } from "./gateway.js";
import { createLogger } from "./observability/logger.js";
import { describeRedis } from "./store/connection/redis.js";

/** Throws, with every listener closed, when a listener cannot bind or Redis fails the start-up checks. */
export async function runGateway(loaded: ServingConfig): Promise<void> {
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
