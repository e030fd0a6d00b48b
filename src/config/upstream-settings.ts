// The model server's settings: where it is (upstream.url, refused with the fix when it carries credentials
// or ends in /v1), how requests reach it, which paths are which endpoints, and the queue of fair sharing.

import { z } from "zod";
import { ENDPOINT_CLASSES, isEndpointPattern } from "../core/endpoint-classes.js";
import { httpUrl } from "./fields.js";

/**
 * The model server's URL. Credentials written into it would be printed in the start-up log line and never
 * sent (http-proxy-3 ignores them): the upstream's key belongs in upstream.apiKey.
 */
const upstreamUrl = httpUrl
  .refine((url) => !/^https?:\/\/[^/?#]*@/i.test(url), {
    error:
      "must not contain credentials; put the model server's key in upstream.apiKey (TUNNEL_UPSTREAM_API_KEY)",
  })
  // OpenAI clients are configured with a base URL ending in /v1; copied here, every request would 404. (zod
  // runs this even after the URL check failed: a text that is no URL is that check's to report.)
  .refine((url) => !URL.canParse(url) || !/\/v1\/?$/i.test(new URL(url).pathname), {
    error:
      "must not end in /v1: the gateway forwards the client's path as it is, so a request for " +
      "/v1/chat/completions would go to …/v1/v1/chat/completions; give the model server's root, " +
      "such as http://127.0.0.1:8000",
  });

export const endpointsSection = z
  .record(
    z.string().refine(isEndpointPattern, {
      error: 'must be a path such as "/v1/my-endpoint", "POST /props" or "/prefix/*"',
    }),
    z.enum(ENDPOINT_CLASSES),
  )
  .default({});

export const upstreamSection = z
  .strictObject({
    url: upstreamUrl.default("http://127.0.0.1:8000"),
    apiKey: z.string().min(1).optional(),
    timeoutMs: z.number().int().positive().default(300_000),
    // Below the idle timeout of the usual model servers (uvicorn under vLLM, Node: 5 s), so that the
    // gateway, not the server, closes an idle pooled connection: a request sent on a connection the
    // server is closing at that instant would fail with 502.
    keepAliveIdleMs: z.number().int().positive().default(4000),
    injectStreamUsage: z.boolean().default(true),
    // Fair sharing (docs/fair-sharing.md): unset, every admitted request is forwarded at once.
    maxInFlight: z.number().int().positive().max(100_000).optional(),
    sharedInFlight: z.boolean().default(false),
    priorityField: z
      .string()
      .regex(
        /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/,
        "must be a field name such as priority, or a dotted path such as nvext.priority",
      )
      .optional(),
    priorityOrder: z.enum(["lowerFirst", "higherFirst"]).default("lowerFirst"),
  })
  .refine((upstream) => !upstream.sharedInFlight || upstream.maxInFlight !== undefined, {
    error: "sharedInFlight needs maxInFlight: the limit the replicas share",
    path: ["sharedInFlight"],
  })
  .prefault({});

export const queueSection = z
  .strictObject({
    maxWaitMs: z.number().int().positive().max(3_600_000).default(30_000),
    maxRequests: z.number().int().positive().max(1_000_000).default(10_000),
    maxRequestsPerAccount: z.number().int().positive().max(1_000_000).default(1000),
  })
  .prefault({});
