// What each forwarded path is, for money and for access: one table, decided from the method and the path
// alone before the body is read. Each class has its own worst case and its own rule for reading usage:
//
//   generation   chat, completions, Responses, Anthropic messages, Ollama's and TGI's native generation:
//                prompt bound + output cap × choices; a report needs prompt and completion tokens
//   input-only   embeddings, scoring, reranking, classification, pooling: the input alone; no output cap
//                is added or reserved, and a report of prompt tokens alone is complete
//   free         token counting, tokenizing, and every request without a body: authenticated and
//                forwarded, never reserved or charged
//   management   the model servers' own switches (sleep, cache resets, adapters, model pulls and deletes):
//                refused with 403 path_not_allowed, never forwarded
//   other        anything else with a body: the generic worst case, estimated usage unless reported
//
// The operator extends or overrides the table with `endpoints` in the configuration (docs/billing.md).

import { GatewayError } from "../errors.js";

export const ENDPOINT_CLASSES = ["generation", "input-only", "free", "management", "other"] as const;
export type EndpointClass = (typeof ENDPOINT_CLASSES)[number];

/** A field of the request body, as the path of keys from the body's root. */
export type FieldPath = readonly string[];

export interface Endpoint {
  class: EndpointClass;
  /**
   * Body fields that cap the output, each as some model server reads it. Every one present must be a valid
   * cap, and the worst case allows for the largest: servers differ in which they honour.
   */
  caps: readonly FieldPath[];
  /**
   * Where the gateway writes a cap when the body leaves it unset: the largest cap the request set (so that
   * a server that reads only this field honours it), or the reservation's default cap when it set none.
   * With several, the first whose enclosing object the body has (servers sharing a path nest their
   * parameters differently), else the first.
   */
  capTargets: readonly FieldPath[];
  /** Fields that multiply the output (n, best_of): the worst case multiplies by the largest. */
  choices: readonly FieldPath[];
  /** Whether a stream may be asked for its usage with stream_options.include_usage. */
  streamUsage: boolean;
}

const NONE: Omit<Endpoint, "class"> = { caps: [], capTargets: [], choices: [], streamUsage: false };
const free: Endpoint = { class: "free", ...NONE };
const inputOnly: Endpoint = { class: "input-only", ...NONE };
const management: Endpoint = { class: "management", ...NONE };
const other: Endpoint = { class: "other", ...NONE };

const generation = (
  caps: string[],
  capTargets: string | string[],
  extra: { choices?: string[]; streamUsage?: boolean } = {},
): Endpoint => ({
  class: "generation",
  caps: caps.map((cap) => cap.split(".")),
  capTargets: (Array.isArray(capTargets) ? capTargets : [capTargets]).map((target) => target.split(".")),
  choices: (extra.choices ?? []).map((field) => field.split(".")),
  streamUsage: extra.streamUsage ?? false,
});

// llama.cpp reads n_predict before max_tokens on its OpenAI routes too, so a body may cap with either.
const chat = generation(["max_completion_tokens", "max_tokens", "n_predict"], "max_tokens", {
  choices: ["n"],
  streamUsage: true,
});
const completions = generation(["max_tokens", "n_predict"], "max_tokens", {
  choices: ["n", "best_of"],
  streamUsage: true,
});

/**
 * The built-in table. Keys are "/path" (any method), "METHOD /path" (that method only, which wins), or
 * either with a trailing "/*" for every path under a prefix. Paths are matched in canonical form
 * (canonicalPath): lower case, percent-decoding, dot segments and repeated or trailing slashes resolved.
 */
export const BUILT_IN_ENDPOINTS: ReadonlyMap<string, Endpoint> = new Map<string, Endpoint>([
  // Generation: OpenAI and Anthropic APIs as vLLM, SGLang, TGI, llama.cpp and Ollama serve them.
  ["/v1/chat/completions", chat],
  ["/chat/completions", chat],
  ["/v1/completions", completions],
  ["/completions", completions],
  ["/v1/responses", generation(["max_output_tokens"], "max_output_tokens")],
  ["/v1/messages", generation(["max_tokens"], "max_tokens")],
  // llama.cpp's native completion and infill endpoints.
  ["/completion", generation(["n_predict", "max_tokens"], "n_predict")],
  ["/infill", generation(["n_predict", "max_tokens"], "n_predict")],
  // Ollama's native API: without options.num_predict a generation runs until the context is full.
  ["/api/chat", generation(["options.num_predict"], "options.num_predict")],
  ["/api/generate", generation(["options.num_predict"], "options.num_predict")],
  // TGI's native API (parameters.max_new_tokens), and SGLang's on the same path (sampling_params).
  [
    "/generate",
    generation(
      ["parameters.max_new_tokens", "sampling_params.max_new_tokens"],
      ["parameters.max_new_tokens", "sampling_params.max_new_tokens"],
      { choices: ["parameters.best_of", "sampling_params.n"] },
    ),
  ],
  [
    "/generate_stream",
    generation(["parameters.max_new_tokens"], "parameters.max_new_tokens", {
      choices: ["parameters.best_of"],
    }),
  ],

  // Input only: the whole cost is in the input.
  ["/v1/embeddings", inputOnly],
  ["/embeddings", inputOnly],
  ["/api/embed", inputOnly],
  ["/api/embeddings", inputOnly],
  ["/embed", inputOnly],
  ["/embedding", inputOnly],
  ["/encode", inputOnly],
  ["/score", inputOnly],
  ["/v1/score", inputOnly],
  ["/rerank", inputOnly],
  ["/v1/rerank", inputOnly],
  ["/v2/rerank", inputOnly],
  ["/reranking", inputOnly],
  ["/v1/reranking", inputOnly],
  ["/classify", inputOnly],
  ["/v1/classify", inputOnly],
  ["/pooling", inputOnly],
  ["/v1/pooling", inputOnly],

  // Free: counting and converting tokens generates nothing.
  ["/v1/messages/count_tokens", free],
  ["/tokenize", free],
  ["/detokenize", free],
  ["/v1/tokenize", free],
  ["/v1/detokenize", free],
  ["/apply-template", free],
  ["/chat_tokenize", free],
  ["/v1/chat/completions/input_tokens", free],
  ["/v1/responses/input_tokens", free],
  ["POST /api/show", free],

  // Management: switches of the shared model server that no API key holder may reach, and pages that show
  // other users' requests or the server's configuration. Taken from each server's route registrations
  // (test/fixtures/upstreams/management.ts names the files).
  // vLLM: the dev-mode routers, LoRA, profiling, elastic EP, token-in generation for disaggregated serving.
  ["/sleep", management],
  ["/wake_up", management],
  ["/is_sleeping", management],
  ["/reset_prefix_cache", management],
  ["/reset_mm_cache", management],
  ["/reset_encoder_cache", management],
  ["/collective_rpc", management],
  ["/pause", management],
  ["/resume", management],
  ["/is_paused", management],
  ["/get_world_size", management],
  ["/init_weight_transfer_engine", management],
  ["/start_weight_update", management],
  ["/update_weights", management],
  ["/finish_weight_update", management],
  ["/server_info", management],
  ["/v1/load_lora_adapter", management],
  ["/v1/unload_lora_adapter", management],
  ["/start_profile", management],
  ["/stop_profile", management],
  ["/scale_elastic_ep", management],
  ["/is_scaling_elastic_ep", management],
  ["/inference/v1/generate", management],
  // SGLang
  ["/flush_cache", management],
  ["/add_external_corpus", management],
  ["/abort_request", management],
  ["/pause_generation", management],
  ["/continue_generation", management],
  ["/update_weights_from_disk", management],
  ["/update_weights_from_tensor", management],
  ["/update_weights_from_distributed", management],
  ["/init_weights_update_group", management],
  ["/release_memory_occupation", management],
  ["/resume_memory_occupation", management],
  ["/load_lora_adapter", management],
  ["/unload_lora_adapter", management],
  ["/configure_logging", management],
  ["/set_internal_state", management],
  ["/slow_down", management],
  ["/open_session", management],
  ["/close_session", management],
  ["/generate_from_file", management],
  ["/get_server_info", management],
  // llama.cpp: slot save/restore/erase (GET /slots shows other users' prompts), LoRA scales, properties,
  // another request's reasoning, router-mode model loading, other sessions' streams, its proxy and tools.
  ["/slots", management],
  ["/slots/*", management],
  ["POST /lora-adapters", management],
  ["POST /props", management],
  ["/v1/chat/completions/control", management],
  ["POST /models", management],
  ["DELETE /models", management],
  ["/models/load", management],
  ["/models/unload", management],
  ["/models/sse", management],
  ["/v1/stream/*", management],
  ["/v1/streams", management],
  ["/cors-proxy", management],
  ["/tools", management],
  // Ollama: model management, the server's ollama.com account, its web tools, Go's profiler.
  ["/api/pull", management],
  ["/api/push", management],
  ["/api/create", management],
  ["/api/copy", management],
  ["/api/delete", management],
  ["/api/blobs/*", management],
  ["/api/me", management],
  ["/api/signin", management],
  ["/api/signout", management],
  ["/api/user/keys/*", management],
  ["/api/experimental/web_search", management],
  ["/api/experimental/web_fetch", management],
  ["/debug/pprof", management],
  ["/debug/pprof/*", management],
]);

/** Classifies requests by method and path: the built-in table with the operator's entries over it. */
export class EndpointTable {
  private readonly exact = new Map<string, Endpoint>();
  private readonly prefixes: [string, Endpoint][] = [];

  constructor(overrides: Readonly<Record<string, EndpointClass>> = {}) {
    const entries = new Map(BUILT_IN_ENDPOINTS);
    for (const [pattern, endpointClass] of Object.entries(overrides)) {
      entries.set(normalizePattern(pattern), endpointFor(endpointClass));
    }
    for (const [pattern, endpoint] of entries) {
      if (pattern.endsWith("/*")) this.prefixes.push([pattern.slice(0, -1), endpoint]);
      else this.exact.set(pattern, endpoint);
    }
    // Longest prefix first, method-specific before any-method for the same prefix.
    this.prefixes.sort(([a], [b]) => b.length - a.length);
  }

  /** The endpoint a request goes to (a request without a body is free, whatever its endpoint). */
  classify(method: string, path: string): Endpoint {
    const canonical = canonicalPath(path);
    return this.lookup(`${method.toUpperCase()} ${canonical}`) ?? this.lookup(canonical) ?? other;
  }

  private lookup(key: string): Endpoint | undefined {
    const exact = this.exact.get(key);
    if (exact) return exact;
    for (const [prefix, endpoint] of this.prefixes) if (key.startsWith(prefix)) return endpoint;
    return undefined;
  }
}

/** A path rule from the configuration, validated: "/path", "METHOD /path", either ending in "/*". */
export function isEndpointPattern(pattern: string): boolean {
  return /^(?:[A-Za-z]+ )?\/[^\s?#]*$/.test(pattern);
}

function normalizePattern(pattern: string): string {
  const space = pattern.indexOf(" ");
  const method = space === -1 ? "" : `${pattern.slice(0, space).toUpperCase()} `;
  const path = space === -1 ? pattern : pattern.slice(space + 1);
  const prefix = path.endsWith("/*");
  const canonical = canonicalPath(prefix ? path.slice(0, -2) : path);
  return `${method}${canonical === "/" && prefix ? "" : canonical}${prefix ? "/*" : ""}`;
}

/** A class from the configuration as a table entry; a generation there caps like OpenAI's APIs. */
function endpointFor(endpointClass: EndpointClass): Endpoint {
  switch (endpointClass) {
    case "generation":
      return generation(["max_completion_tokens", "max_tokens", "max_output_tokens"], "max_tokens", {
        choices: ["n"],
      });
    case "input-only":
      return inputOnly;
    case "free":
      return free;
    case "management":
      return management;
    case "other":
      return other;
  }
}

/**
 * The path as a model server's router would resolve it, for matching: percent-escapes decoded (except
 * %2F, which routers keep as part of a segment), dot segments resolved, repeated and trailing slashes
 * dropped, lower case. Without this, `/%73leep` or `//sleep/` would slip past the management entries
 * while the server still routes them to /sleep.
 */
export function canonicalPath(path: string): string {
  let decoded = path;
  if (path.includes("%")) {
    decoded = path.replace(/%(?!2f)([0-9a-f]{2})/gi, (_match, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
  const segments: string[] = [];
  for (const segment of decoded.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`.toLowerCase();
}

/** The refusal of a management path. */
export function pathNotAllowed(method: string, path: string): GatewayError {
  return new GatewayError(
    "path_not_allowed",
    `${method} ${path} is a management endpoint of the model server; API keys may not use it.`,
  );
}
