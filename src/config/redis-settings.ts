// The Redis settings: the URL (and the database its path selects), credentials, TLS, Cluster or Sentinel,
// timeouts, the persistence check's way out, and the replicas a settlement waits for.

import { z } from "zod";
import { file, hostPort } from "./fields.js";

/**
 * The database a redis:// URL selects: the number in its path (ioredis sends SELECT with it), 0 without one,
 * or null when the path is not a database number.
 */
export function redisDatabase(url: string): number | null {
  const path = URL.canParse(url) ? new URL(url).pathname : "";
  const match = /^\/?(\d{1,5})?$/.exec(path);
  return match ? Number(match[1] ?? 0) : null;
}

export const redisSection = z
  .strictObject({
    url: z
      .string()
      .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
      .refine((url) => redisDatabase(url) !== null, {
        error: "may have a database number as its path (redis://host:6379/2), nothing else",
      })
      .default("redis://127.0.0.1:6379"),
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9:_.-]*$/, "may contain only letters, digits and : _ . -")
      .default("tg:"),
    username: z.string().min(1).optional(),
    password: z.string().min(1).optional(),
    tls: z
      .strictObject({
        enabled: z.boolean().default(false),
        caFile: file.optional(),
        certFile: file.optional(),
        keyFile: file.optional(),
        rejectUnauthorized: z.boolean().default(true),
      })
      .prefault({}),
    cluster: z
      .strictObject({
        nodes: z.array(hostPort).min(1, "needs at least one seed node"),
      })
      .optional(),
    sentinel: z
      .strictObject({
        sentinels: z.array(hostPort).min(1, "needs at least one sentinel"),
        name: z.string().min(1),
        password: z.string().min(1).optional(),
      })
      .optional(),
    commandTimeoutMs: z.number().int().positive().default(5000),
    allowNoPersistence: z.boolean().default(false),
    // Replicas that must have a settlement's write (WAIT) before it counts as done (docs/redis.md).
    settlementReplicas: z.union([z.literal("auto"), z.number().int().min(0).max(16)]).default("auto"),
    settlementReplicaTimeoutMs: z.number().int().min(1).max(60_000).default(250),
  })
  .refine((redis) => !(redis.cluster && redis.sentinel), {
    error: "use either cluster or sentinel, not both",
  })
  // With cluster or sentinel the URL is not used: a database number in it would be silently ignored.
  .refine((redis) => !(redis.cluster || redis.sentinel) || redisDatabase(redis.url) === 0, {
    error:
      "a database number in redis.url does not apply with redis.cluster or redis.sentinel, where the URL " +
      "is not used (Redis Cluster has only database 0): remove it",
    path: ["url"],
  })
  .prefault({});
