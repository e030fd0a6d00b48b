// Redis connections. The gateway fails closed and fast when Redis is away: commands are not queued while
// disconnected, so a request gets 503 at once instead of hanging, and the settlement queue retries what
// must not be lost. The CLI, in contrast, waits briefly for its connection and then says clearly that it
// could not reach Redis.

import { readFileSync } from "node:fs";
import type { ConnectionOptions } from "node:tls";
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from "ioredis";
import type { Config } from "../../config/schema.js";
import { GatewayError } from "../../core/errors.js";
import { isRedisError } from "../../core/redis-errors.js";
import { batchWritesPerTurn } from "./write-batching.js";

/** A Redis to connect to: one server by URL, a Cluster by its seed nodes, or a master through Sentinel. */
export type RedisSettings = Pick<Config["redis"], "url"> & Partial<Omit<Config["redis"], "url">>;

export type ConnectionRole = "gateway" | "cli";

/** A connection: to one server (directly or through Sentinel), or to a Cluster. */
export type RedisClient = Redis | Cluster;

function hostPort(text: string): { host: string; port: number } {
  const at = text.lastIndexOf(":");
  return { host: text.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(text.slice(at + 1)) };
}

function tlsOptions(settings: RedisSettings): ConnectionOptions | undefined {
  const tls = settings.tls;
  if (!tls?.enabled && !settings.url.startsWith("rediss://")) return undefined;
  return {
    ...(tls?.caFile && { ca: readFileSync(tls.caFile) }),
    ...(tls?.certFile && { cert: readFileSync(tls.certFile) }),
    ...(tls?.keyFile && { key: readFileSync(tls.keyFile) }),
    rejectUnauthorized: tls?.rejectUnauthorized ?? true,
  };
}

function roleOptions(role: ConnectionRole, settings: RedisSettings): RedisOptions {
  return role === "gateway"
    ? {
        enableOfflineQueue: false,
        // Commands share one connection without waiting for each other anyway, and the scripts of one
        // event-loop turn leave in one write (write-batching.ts). Auto-pipelining would also hold each
        // command until the previous batch has been answered: a round trip of latency added to requests.
        enableAutoPipelining: false,
        maxRetriesPerRequest: 1,
        commandTimeout: settings.commandTimeoutMs ?? 5000,
        // Reconnect quickly: every second without Redis is a second of 503s.
        retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 1000),
        lazyConnect: true,
      }
    : { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5000, retryStrategy: () => null };
}

export function createRedis(settings: RedisSettings, role: ConnectionRole): RedisClient {
  const credentials: RedisOptions = {
    ...(settings.username && { username: settings.username }),
    ...(settings.password && { password: settings.password }),
  };
  const tls = tlsOptions(settings);
  const options: RedisOptions = { ...roleOptions(role, settings), ...credentials, ...(tls && { tls }) };
  let client: RedisClient;
  if (settings.cluster) {
    const { enableOfflineQueue, enableAutoPipelining, lazyConnect, retryStrategy, ...redisOptions } = options;
    const clusterOptions: ClusterOptions = {
      redisOptions,
      enableOfflineQueue,
      enableAutoPipelining,
      lazyConnect,
      clusterRetryStrategy: role === "gateway" ? (attempt) => Math.min(50 * 2 ** attempt, 1000) : () => null,
      // A failover seen within seconds even with no command to a moved slot: a promoted master is checked
      // (redis-startup.ts) and settlements find their master (replica-acks.ts).
      ...(role === "gateway" && { slotsRefreshInterval: 5000 }),
      // Money is read and written on masters only.
      scaleReads: "master",
    };
    client = new Cluster(settings.cluster.nodes.map(hostPort), clusterOptions);
  } else if (settings.sentinel) {
    client = new Redis({
      ...options,
      sentinels: settings.sentinel.sentinels.map(hostPort),
      name: settings.sentinel.name,
      ...(settings.sentinel.password && { sentinelPassword: settings.sentinel.password }),
      ...(tls && { enableTLSForSentinelMode: true }),
    });
  } else {
    client = new Redis(settings.url, options);
  }
  // Connection problems surface through commands (503, CLI error); the event itself must not crash the process.
  client.on("error", () => {});
  // Every (re)connection of a single server gets its own socket: its writes are batched per event-loop turn.
  // A Cluster spreads commands over several connections and is left as it is.
  if (role === "gateway" && client instanceof Redis) {
    client.on("connect", () => batchWritesPerTurn((client as Redis).stream));
  }
  return client;
}

/** Where the gateway's Redis is, for messages and logs (never a password). */
export function describeRedis(settings: RedisSettings): string {
  if (settings.cluster) return `cluster ${settings.cluster.nodes.join(",")}`;
  if (settings.sentinel)
    return `sentinel ${settings.sentinel.name} via ${settings.sentinel.sentinels.join(",")}`;
  return redactUrl(settings.url);
}

/** Connects, or throws service_unavailable naming the server (without its password) and the real cause. */
export async function connectRedis(client: RedisClient, settings: RedisSettings): Promise<void> {
  const failures = explainConnectFailures(client, settings);
  try {
    await client.connect();
  } catch (error) {
    throw failures.explain(error);
  } finally {
    failures.stop();
  }
}

export interface ConnectFailures {
  /**
   * The error to report for a failure: service_unavailable naming the server and the cause when the
   * connection never opened, the failure itself otherwise.
   */
  explain(error: unknown): unknown;
  stop(): void;
}

/**
 * Watches a connection that is opening so that its failure can be reported with its cause: ioredis rejects
 * connect(), and the commands that waited for it, with a bare "Connection is closed.", while the cause
 * (connect ECONNREFUSED 127.0.0.1:6379, an unknown host, a refused password) arrives as an error event.
 */
export function explainConnectFailures(client: RedisClient, settings: RedisSettings): ConnectFailures {
  let cause: Error | undefined;
  let opened = false;
  const remember = (error: Error) => {
    cause ??= error;
  };
  const ready = () => {
    opened = true;
  };
  client.on("error", remember);
  client.once("ready", ready);
  return {
    explain(error) {
      if (opened || !isRedisError(error)) return error;
      const reason = (cause ?? (error as Error)).message;
      return new GatewayError(
        "service_unavailable",
        `cannot connect to Redis at ${describeRedis(settings)}: ${reason}`,
        { cause: cause ?? error },
      );
    },
    stop() {
      client.off("error", remember);
      client.off("ready", ready);
    },
  };
}

/** Closes a connection without leaving timers behind (ioredis arms one even for a socket that never opened). */
export function closeRedis(client: RedisClient): void {
  if (client.status !== "end") client.disconnect();
}

/** The URL with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable Redis URL)";
  }
}
