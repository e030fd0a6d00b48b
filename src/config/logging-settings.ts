// What is kept of requests: each key's recent-requests list (requestLog) and the log line (logging).

import { z } from "zod";

export const requestLogSection = z
  .strictObject({
    maxPerKey: z.number().int().min(0).default(1000),
    maxBodyBytes: z.number().int().min(0).default(2048),
    /** A key's list expires this many days after its last request, so that unused keys leave nothing behind. */
    retentionDays: z.number().int().min(1).default(30),
  })
  .prefault({});

export const loggingSection = z
  .strictObject({
    level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
    bodies: z.boolean().default(true),
    maxBodyBytes: z.number().int().min(0).default(4096),
  })
  .prefault({});
