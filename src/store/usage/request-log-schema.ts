// A kept request as JSON, defined once as a zod schema: the entry a request becomes in its key's
// recent-requests list (request-log-store.ts derives it from the request, the settle script appends it),
// which the admin API pages through (its OpenAPI component) and the dashboard shows (its type). It is here,
// with the store that writes it, below every layer that reads it.

import { z } from "zod";
import { isoTime } from "../../core/time-schema.js";

export const RequestLogEntry = z
  .object({
    at: isoTime,
    request_id: z.string(),
    method: z.string(),
    path: z.string(),
    model: z.string().nullable(),
    status: z.number(),
    outcome: z.string(),
    prompt_tokens: z.number(),
    cached_tokens: z.number().optional().meta({
      description:
        "Of prompt_tokens, those the model server served from its cache (absent in older entries: 0)",
    }),
    cache_write_tokens: z.number().optional().meta({
      description: "Of prompt_tokens, those the model server wrote to its cache; only when there were some",
    }),
    completion_tokens: z.number(),
    cost: z.number().meta({ description: "Rubles" }),
    usage_estimated: z.boolean(),
    latency_ms: z.number(),
    upstream_ttfb_ms: z.number().nullable(),
    queue_ms: z.number().optional().meta({
      description: "How long it waited for a place at the model server; only with upstream.maxInFlight set",
    }),
    request_body: z.string().optional().meta({
      description: "Only while the key's log_bodies is on, cut to requestLog.maxBodyBytes",
    }),
    response_body: z.string().optional(),
  })
  .meta({ id: "RequestLogEntry" });

/** One request as kept in the key's recent-requests list. */
export type RequestLogEntry = z.output<typeof RequestLogEntry>;
