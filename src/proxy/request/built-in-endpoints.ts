// The endpoint classes and the built-in table (endpoints.ts classifies with it; its header explains the
// classes): every path the model servers serve that is not "other", by what their sources register.

import type { EndpointClass } from "../../core/endpoint-classes.js";

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
export const free: Endpoint = { class: "free", ...NONE };
export const inputOnly: Endpoint = { class: "input-only", ...NONE };
export const management: Endpoint = { class: "management", ...NONE };
export const other: Endpoint = { class: "other", ...NONE };

export const generation = (
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
