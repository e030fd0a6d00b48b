// The names of the OpenTelemetry semantic conventions the gateway's spans and metrics use — the GenAI ones as
// of semantic conventions v1.40.0 (gen_ai.provider.name, which replaced gen_ai.system), HTTP and server ones —,
// and ours, under tunnel_gateway.*. Written out here rather than imported from
// @opentelemetry/semantic-conventions/incubating, as that package advises for conventions still in development:
// a rename upstream then changes nothing here until we choose to follow it.
//
// Which GenAI operation a request is follows from its path (the model servers' routes as the endpoint table
// knows them); a path the table does not name goes by its endpoint class, and a request that is no GenAI
// operation (a token count, a model list, anything "other") gets no GenAI attributes or metrics.

import type { GatewayRequest } from "../../core/request.js";

export const ATTR = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.usage.cache_creation.input_tokens",
  tokenType: "gen_ai.token.type",
  serverAddress: "server.address",
  serverPort: "server.port",
  errorType: "error.type",
  method: "http.request.method",
  statusCode: "http.response.status_code",
  urlPath: "url.path",
  // Ours.
  requestId: "tunnel_gateway.request_id",
  keyId: "tunnel_gateway.key_id",
  accountId: "tunnel_gateway.account_id",
  endpointClass: "tunnel_gateway.endpoint_class",
  outcome: "tunnel_gateway.outcome",
  admission: "tunnel_gateway.admission",
  reservedRub: "tunnel_gateway.reserved_rub",
  costRub: "tunnel_gateway.cost_rub",
  overageRub: "tunnel_gateway.overage_rub",
  estimated: "tunnel_gateway.usage_estimated",
  usageRejected: "tunnel_gateway.usage_rejected",
  timeToFirstByte: "tunnel_gateway.upstream.time_to_first_byte",
} as const;

/** The GenAI metrics, with the conventions' units and the bucket boundaries they advise. */
export const GEN_AI_METRICS = {
  tokenUsage: {
    name: "gen_ai.client.token.usage",
    unit: "{token}",
    description: "Number of input and output tokens used.",
    buckets: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864],
  },
  operationDuration: {
    name: "gen_ai.client.operation.duration",
    unit: "s",
    description: "GenAI operation duration.",
    buckets: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
  },
  timeToFirstToken: {
    name: "gen_ai.server.time_to_first_token",
    unit: "s",
    description: "Time to generate first token for successful responses.",
    buckets: [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0],
  },
  timePerOutputToken: {
    name: "gen_ai.server.time_per_output_token",
    unit: "s",
    description: "Time per output token generated after the first token for successful responses.",
    buckets: [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5],
  },
} as const;

/** The gateway's steps, each a span under the request's. */
export const STEP_SPANS = {
  auth: "tunnel_gateway.auth",
  admission: "tunnel_gateway.admission",
  queue: "tunnel_gateway.queue",
} as const;

/** An event of the exchange's span: the model server's answer began (its status line and headers). */
export const FIRST_BYTE_EVENT = "tunnel_gateway.upstream.first_byte";

const OPERATIONS: ReadonlyMap<string, string> = new Map([
  ["/v1/chat/completions", "chat"],
  ["/chat/completions", "chat"],
  ["/v1/messages", "chat"],
  ["/v1/responses", "chat"],
  ["/api/chat", "chat"],
  ["/v1/completions", "text_completion"],
  ["/completions", "text_completion"],
  ["/completion", "text_completion"],
  ["/infill", "text_completion"],
  ["/api/generate", "text_completion"],
  ["/generate", "text_completion"],
  ["/generate_stream", "text_completion"],
  ["/v1/embeddings", "embeddings"],
  ["/embeddings", "embeddings"],
  ["/api/embed", "embeddings"],
  ["/api/embeddings", "embeddings"],
  ["/embed", "embeddings"],
  ["/embedding", "embeddings"],
  ["/encode", "embeddings"],
  // No well-known value applies: custom ones, as the conventions allow.
  ["/rerank", "rerank"],
  ["/v1/rerank", "rerank"],
  ["/v2/rerank", "rerank"],
  ["/reranking", "rerank"],
  ["/v1/reranking", "rerank"],
  ["/score", "score"],
  ["/v1/score", "score"],
  ["/classify", "classify"],
  ["/v1/classify", "classify"],
  ["/pooling", "pooling"],
  ["/v1/pooling", "pooling"],
]);

/** The request's gen_ai.operation.name, or null when it is no GenAI operation. */
export function operationOf(request: GatewayRequest): string | null {
  const { endpointClass } = request;
  if (endpointClass !== "generation" && endpointClass !== "input-only") return null;
  const known = request.path === null ? undefined : OPERATIONS.get(request.path);
  if (known !== undefined) return known;
  return endpointClass === "generation" ? "text_completion" : "embeddings";
}

/**
 * The prompt tokens read from the model server's cache and written to it, as charged, when the server
 * reported cache counts (OpenAI-style cached_tokens or Anthropic-style cache fields); null when it reported
 * none. The semantic conventions count both within gen_ai.usage.input_tokens, as the charge does.
 */
export function cacheTokens(request: GatewayRequest): { read: number; write: number | null } | null {
  const { usage } = request;
  if (usage.cached === undefined && usage.cacheRead === undefined && usage.cacheCreation === undefined)
    return null;
  return {
    read: request.cachedTokens,
    write: usage.cacheCreation === undefined ? null : request.cacheWriteTokens,
  };
}

/** The model server's host and port, as server.address and server.port. */
export function serverOf(upstreamUrl: string): { address: string; port: number } {
  const url = new URL(upstreamUrl);
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return { address: url.hostname.replace(/^\[|\]$/g, ""), port };
}
