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

import type { EndpointClass } from "../../core/endpoint-classes.js";
import { GatewayError } from "../../core/errors.js";
import {
  BUILT_IN_ENDPOINTS,
  type Endpoint,
  free,
  generation,
  inputOnly,
  management,
  other,
} from "./built-in-endpoints.js";

export type { Endpoint, FieldPath } from "./built-in-endpoints.js";

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
  // Most paths are canonical already (lower case, no escapes, dots or empty segments): no work, no garbage.
  if (PLAIN_PATH.test(path)) return path;
  return resolvedPath(path);
}

const PLAIN_PATH = /^(?:\/[a-z0-9_:-]+)+$/;

/** canonicalPath's work in full, for paths that need it. */
export function resolvedPath(path: string): string {
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
