import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalPath, EndpointTable, resolvedPath } from "../../../src/proxy/request/endpoints.js";
import { UPSTREAM_ROUTES } from "../../fixtures/upstreams/index.js";

const table = new EndpointTable();
const classOf = (method: string, path: string, t = table) => t.classify(method, path).class;

/** A concrete path for a route pattern such as /slots/:id or /debug/pprof/*. */
const sample = (pattern: string) => pattern.replace(/:[a-z_]+/gi, "x1").replace(/\*$/, "heap");

describe("EndpointTable", () => {
  it("classes the OpenAI, Anthropic and native generation endpoints as generation", () => {
    for (const path of [
      "/v1/chat/completions",
      "/v1/completions",
      "/v1/responses",
      "/v1/messages",
      "/api/chat",
      "/generate",
    ]) {
      expect(classOf("POST", path), path).toBe("generation");
    }
  });

  it("classes embeddings, scoring and reranking as input-only, and token counting as free", () => {
    for (const path of [
      "/v1/embeddings",
      "/api/embed",
      "/score",
      "/v1/rerank",
      "/v2/rerank",
      "/classify",
      "/pooling",
    ]) {
      expect(classOf("POST", path), path).toBe("input-only");
    }
    for (const path of [
      "/v1/messages/count_tokens",
      "/tokenize",
      "/detokenize",
      "/v1/chat/completions/input_tokens",
    ]) {
      expect(classOf("POST", path), path).toBe("free");
    }
    expect(classOf("POST", "/v1/unknown")).toBe("other");
  });

  it("refuses every management endpoint the model servers' sources register, for its method", () => {
    for (const [server, routes] of Object.entries(UPSTREAM_ROUTES)) {
      for (const route of routes.management) {
        for (const method of route.method.split(",")) {
          expect(classOf(method, sample(route.path)), `${server} ${method} ${route.path}`).toBe("management");
        }
      }
    }
  });

  it("leaves the informational endpoints alone, but for those that show other users' requests or the configuration", () => {
    const refused = new Set(["GET /slots", "GET /server_info", "GET /get_server_info"]);
    for (const [server, routes] of Object.entries(UPSTREAM_ROUTES)) {
      for (const route of routes.informational) {
        for (const method of route.method.split(",")) {
          const key = `${method} ${route.path}`;
          expect(classOf(method, sample(route.path)) === "management", `${server} ${key}`).toBe(
            refused.has(key),
          );
        }
      }
    }
  });

  it("cannot be slipped past with encodings, dot segments, repeated slashes or case", () => {
    for (const path of [
      "/%73leep",
      "//sleep",
      "/sleep/",
      "/v1/../sleep",
      "/./sleep",
      "/SLEEP",
      "/api//pull",
      "/slots/0?action=erase",
    ]) {
      expect(classOf("POST", path.split("?")[0] as string), path).toBe("management");
    }
    // %2F stays part of a segment, as routers read it.
    expect(canonicalPath("/v1/models/org%2Fmodel")).toBe("/v1/models/org%2fmodel");
  });

  it("takes a path that is canonical already as it is, and resolves every other one in full", () => {
    // The shortcut for plain paths must never answer differently from the full resolution.
    const pieces = ["/", "a", "Z", "v1", ".", "..", "%73", "%2F", "%2f", "-", "_", ":", "~", "%", "é"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const path = `/${parts.join("")}`;
        expect(canonicalPath(path)).toBe(resolvedPath(path));
      }),
      { numRuns: 2000 },
    );
    expect(canonicalPath("/v1/chat/completions")).toBe("/v1/chat/completions");
    expect(canonicalPath("/V1/chat/completions/")).toBe("/v1/chat/completions");
  });

  it("takes the operator's entries over the built-in ones, by path, method or prefix", () => {
    const custom = new EndpointTable({
      "/sleep": "other",
      "/v1/my-embeddings": "input-only",
      "POST /admin/reload": "management",
      "/internal/*": "management",
    });
    expect(classOf("POST", "/sleep", custom)).toBe("other");
    expect(classOf("POST", "/v1/my-embeddings", custom)).toBe("input-only");
    expect(classOf("POST", "/admin/reload", custom)).toBe("management");
    expect(classOf("GET", "/admin/reload", custom)).toBe("other");
    expect(classOf("GET", "/internal/x/y", custom)).toBe("management");
    expect(classOf("POST", "/wake_up", custom)).toBe("management");
  });
});
