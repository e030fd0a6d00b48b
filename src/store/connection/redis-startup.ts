// The gateway's Redis connection from start to stop: connects (retrying for as long as it takes, since the
// gateway may start before its Redis), checks the Redis the first time the connection is ready, and only
// then lets the gateway serve. A Redis that fails the checks at start is refused; one that fails them
// after a failover (a Sentinel reconnection to a differently configured replica, or on a Cluster a replica
// promoted to master, found when the slot map changes its masters) is reported as an error, but the gateway
// runs on: stopping every replica at once would turn a risk into an outage. Replication is judged each time
// too (replication-checks.ts), with warnings only.

import type { Cluster } from "ioredis";
import type { Logger } from "pino";
import { GatewayError } from "../../core/errors.js";
import { isConnectionError } from "../../core/redis-errors.js";
import type { RedisClient } from "./redis.js";
import { addressOf, type CheckOptions, judgeRedis, readRedisFacts } from "./redis-checks.js";
import { watchRedis } from "./redis-watch.js";
import { judgeReplication, type ReplicationOptions, readReplicationFacts } from "./replication-checks.js";

export interface RedisStartupOptions {
  /** Where Redis is, for messages and logs (never a password). */
  where: string;
  logger: Logger;
  now: () => number;
  checks: CheckOptions;
  /** What replication is asked for; one server without settlement replicas when absent. */
  replication?: ReplicationOptions;
  /** Called once, when Redis has passed the checks for the first time. */
  serve: () => void;
}

export interface RedisStartup {
  /** Whether Redis has passed the start-up checks (it may have been lost since). */
  readonly checked: boolean;
  /** Resolves once Redis has passed the checks. */
  serving: Promise<void>;
  /** Resolves with the reason when Redis fails the checks at start; stays pending otherwise. */
  refused: Promise<GatewayError>;
  /** Stops watching the connection (closing it is the caller's). */
  stop(): void;
}

/** Connects `redis` and checks it as described above. */
export function startRedis(redis: RedisClient, options: RedisStartupOptions): RedisStartup {
  const { where, logger } = options;
  let checked = false;
  let refuse: (reason: GatewayError) => void = () => {};
  const refused = new Promise<GatewayError>((resolve) => {
    refuse = resolve;
  });
  let served: () => void = () => {};
  const serving = new Promise<void>((resolve) => {
    served = resolve;
  });

  /** The masters of a Cluster as last checked: a slot map with others (a replica promoted) is checked again. */
  let masters = "";
  const check = async () => {
    const first = !checked;
    const fail = (message: string, line: string) => {
      if (first) refuse(new GatewayError("service_unavailable", message));
      else logger.error({ redis: where, err: message }, line);
    };
    try {
      const seen = masterSet(redis);
      const verdicts = (await readRedisFacts(redis)).map((facts) => judgeRedis(facts, options.checks));
      const replication = (await readReplicationFacts(redis, addressOf)).flatMap((facts) =>
        judgeReplication(facts, options.replication ?? { failover: false, settlementReplicas: 0 }),
      );
      // Only once read: masters that could not be read are read again at the next refresh.
      masters = seen;
      for (const warning of [...verdicts.flatMap((verdict) => verdict.warnings), ...replication]) {
        logger.warn({ redis: where }, warning);
      }
      const refusals = verdicts.flatMap((verdict) => verdict.refusals);
      if (refusals.length > 0) {
        fail(
          `refusing to run on this Redis: ${refusals.join("; ")}`,
          "Redis no longer passes the start-up checks",
        );
        return;
      }
      if (first) {
        checked = true;
        options.serve();
        served();
        logger.info({ redis: where }, "Redis checked: version, persistence and eviction policy are fit");
      }
    } catch (error) {
      // Lost again while checking: the next connection checks again.
      if (isConnectionError(error)) return;
      fail(`cannot check Redis at ${where}: ${(error as Error).message}`, "Redis could not be checked");
    }
  };

  const refreshed = () => {
    if (checked && masterSet(redis) !== masters) void check();
  };
  if ((redis as Cluster).isCluster) redis.on("refresh", refreshed);
  const watch = watchRedis(redis, { where, logger, now: options.now, ready: () => void check() });
  // Failures are logged by the watch, with their cause; ioredis keeps retrying.
  redis.connect().catch(() => {});
  return {
    get checked() {
      return checked;
    },
    serving,
    refused,
    stop: () => {
      redis.off("refresh", refreshed);
      watch.stop();
    },
  };
}

/** A Cluster's masters (host:port, sorted), or "" for one server. */
function masterSet(redis: RedisClient): string {
  if (!(redis as Cluster).isCluster) return "";
  return (redis as Cluster)
    .nodes("master")
    .map((node) => `${node.options.host}:${node.options.port}`)
    .sort()
    .join(",");
}
