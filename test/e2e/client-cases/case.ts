// What a case of the client-library run is: one request through one library, what its client must observe,
// and what the gateway must bill for it (test/e2e/client-libraries.test.ts runs every case through every
// replica). The shared names and helpers of the cases live here too.

import type { Answer, ModelServer } from "../../helpers/model-server.js";

export const MODEL = "demo-small";
export const EMBEDDINGS_MODEL = "embed-small";
/** Answered in Ollama's shape by the stub model server (SHAPES). */
export const OLLAMA_EMBEDDINGS_MODEL = "embeddinggemma";
/** Answered in Ollama's and llama.cpp's shapes of the Anthropic API by the stub model server (SHAPES). */
export const OLLAMA_MODEL = "llama3.2";
export const LLAMA_CPP_MODEL = "Llama-3.2-3B-Instruct-Q4_K_M";
/** A well-formed key that no account has. */
export const WRONG_KEY = `sk-tunnel-${"0".repeat(64)}`;
/** The stub model server's embedding of the first input; the n-th has its first component times n. */
export const VECTOR = [0.015625, -0.03125, 0.0078125, -0.046875];

export type Library = "openai" | "anthropic0" | "anthropic1" | "vercel" | "langchain";
export type EndpointClass = "generation" | "input-only" | "free";

/** What a case's request log line must show. */
export type Billing =
  /** Completed and billed exactly the counts the model server reported. */
  | { kind: "exact"; endpointClass: EndpointClass }
  /** A report that was not believed: billed by estimate within the reservation, the reason logged. */
  | { kind: "rejected"; reason: "not_a_count" | "prompt_above_limit" }
  /** A credible report beyond the reservation: the reservation charged, the rest logged as overage. */
  | { kind: "overage"; endpointClass: EndpointClass }
  | { kind: "upstream_reset" }
  /** The model server closed the connection without an answer: 502, and nothing charged. */
  | { kind: "upstream_unavailable" }
  /** Status 200 when the client left in the middle of the answer, 499 when before it began. */
  | { kind: "client_aborted"; status: 200 | 499 }
  /** Refused by the gateway before anything was forwarded. */
  | { kind: "refused"; status: number; code: string };

export interface CaseContext {
  /** The replica's base URL: the server's root, as Anthropic clients take it (OpenAI clients add /v1). */
  base: string;
  key: string;
  /** Headers to send with the request (X-Case, which the model server records). */
  headers: Record<string, string>;
  upstream: ModelServer;
}

export interface Case {
  name: string;
  library: Library;
  billing: Billing;
  /** Sends the request through the gateway and checks what the client library observed. */
  run(context: CaseContext): Promise<void>;
  /** Checks what the model server received, when the case was forwarded. */
  received?(answer: Answer): void;
}

export const exact = (endpointClass: EndpointClass = "generation"): Billing => ({
  kind: "exact",
  endpointClass,
});

export const user = (content: string) => [{ role: "user" as const, content }];

/** What a request that must fail failed with. */
export async function failure(promise: PromiseLike<unknown>): Promise<unknown> {
  return Promise.resolve(promise).then(
    () => {
      throw new Error("expected the request to fail");
    },
    (error: unknown) => error,
  );
}
