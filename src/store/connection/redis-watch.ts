// Says what happens to the gateway's Redis connection, once per change rather than once per reconnection
// attempt: not reachable yet at start, lost, not reachable (with the cause ioredis reports in its error
// events, such as `connect ECONNREFUSED 127.0.0.1:6379`, rather than the "Connection is closed." its
// commands fail with), and reachable again with how long it was away.

import type { Logger } from "pino";
import type { RedisClient } from "./redis.js";

export interface RedisWatch {
  /** Stops listening to the connection's events. */
  stop(): void;
}

export interface RedisWatchOptions {
  /** Where Redis is, for the log lines (never a password). */
  where: string;
  logger: Logger;
  now: () => number;
  /** Called each time the connection becomes ready. */
  ready: () => void;
}

export function watchRedis(client: RedisClient, options: RedisWatchOptions): RedisWatch {
  const { where, logger, now } = options;
  let everReady = false;
  /** When the connection was lost (ms), or null while it is up or before it was first ready. */
  let lostAt: number | null = null;
  /** The cause last logged during this outage (or this start), so that each new cause is logged once. */
  let reported: string | null = null;

  /** An error of a connection that is up (ECONNRESET): what the "lost" line that follows gives as its cause. */
  let whileUp: string | null = null;

  const onError = (error: Error) => {
    const cause = causeOf(error);
    if (everReady && lostAt === null) {
      whileUp = cause;
      return;
    }
    if (cause === reported) return;
    reported = cause;
    logger.warn(
      { redis: where, err: cause },
      everReady ? "Redis is not reachable; reconnecting" : "Redis is not reachable yet; retrying",
    );
  };
  const onClose = () => {
    if (!everReady || lostAt !== null) return;
    lostAt = now();
    reported = whileUp;
    logger.warn(
      { redis: where, err: whileUp ?? "closed by the server" },
      "Redis connection lost; reconnecting",
    );
    whileUp = null;
  };
  const onReady = () => {
    const first = !everReady;
    everReady = true;
    if (lostAt !== null) {
      logger.info({ redis: where, down_ms: now() - lostAt }, "Redis reachable again");
    } else if (first) {
      logger.info({ redis: where }, "Redis connected");
    }
    lostAt = null;
    reported = null;
    options.ready();
  };

  client.on("error", onError);
  client.on("close", onClose);
  client.on("ready", onReady);
  return {
    stop() {
      client.off("error", onError);
      client.off("close", onClose);
      client.off("ready", onReady);
    },
  };
}

/**
 * The message that says why: a Cluster that reached none of its nodes reports the last node's error
 * underneath its own ("Failed to refresh slots cache.").
 */
function causeOf(error: Error): string {
  const underneath = (error as Error & { lastNodeError?: Error }).lastNodeError;
  return (underneath ?? error).message;
}
