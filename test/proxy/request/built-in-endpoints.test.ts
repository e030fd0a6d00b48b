// The built-in endpoint table, checked as data: every entry written the way the classifier looks paths up
// (canonical form, an upper-case method), every generation entry able to bound its own output, and the
// other classes carrying no output rules. How requests are classified with it is endpoints.test.ts.

import { describe, expect, it } from "vitest";
import { ENDPOINT_CLASSES } from "../../../src/core/endpoint-classes.js";
import {
  BUILT_IN_ENDPOINTS,
  free,
  generation,
  inputOnly,
  management,
  other,
} from "../../../src/proxy/request/built-in-endpoints.js";
import { canonicalPath } from "../../../src/proxy/request/endpoints.js";

const entries = [...BUILT_IN_ENDPOINTS];

describe("the built-in table", () => {
  it("writes every path in the canonical form paths are looked up in, with an upper-case method if any", () => {
    for (const [pattern] of entries) {
      const form = /^(?:([A-Z]+) )?(\/\S*)$/;
      expect(pattern).toMatch(form);
      const match = form.exec(pattern);
      const path = match?.[2] as string;
      const prefix = path.endsWith("/*");
      const bare = prefix ? path.slice(0, -2) : path;
      expect(canonicalPath(bare), pattern).toBe(bare);
    }
  });

  it("uses only the known classes", () => {
    for (const [pattern, endpoint] of entries) expect(ENDPOINT_CLASSES, pattern).toContain(endpoint.class);
    expect(new Set(entries.map(([, e]) => e.class))).toEqual(
      new Set(["generation", "input-only", "free", "management"]),
    );
  });

  it("gives every generation an output cap it reads, and writes a cap only where it also reads one", () => {
    for (const [pattern, endpoint] of entries.filter(([, e]) => e.class === "generation")) {
      expect(endpoint.caps.length, pattern).toBeGreaterThan(0);
      expect(endpoint.capTargets.length, pattern).toBeGreaterThan(0);
      const caps = endpoint.caps.map((field) => field.join("."));
      for (const target of endpoint.capTargets) expect(caps, pattern).toContain(target.join("."));
    }
  });

  it("asks only OpenAI's chat and completions streams for their usage", () => {
    const asked = entries.filter(([, e]) => e.streamUsage).map(([pattern]) => pattern);
    expect(asked.sort()).toEqual([
      "/chat/completions",
      "/completions",
      "/v1/chat/completions",
      "/v1/completions",
    ]);
  });

  it("gives the classes that generate nothing no caps, targets or choices", () => {
    for (const endpoint of [free, inputOnly, management, other]) {
      expect(endpoint).toMatchObject({ caps: [], capTargets: [], choices: [], streamUsage: false });
    }
    for (const [pattern, endpoint] of entries.filter(([, e]) => e.class !== "generation")) {
      expect(endpoint.caps, pattern).toEqual([]);
    }
  });
});

describe("generation", () => {
  it("reads dotted fields as paths into the body", () => {
    expect(
      generation(["options.num_predict", "max_tokens"], "options.num_predict", {
        choices: ["parameters.best_of"],
      }),
    ).toEqual({
      class: "generation",
      caps: [["options", "num_predict"], ["max_tokens"]],
      capTargets: [["options", "num_predict"]],
      choices: [["parameters", "best_of"]],
      streamUsage: false,
    });
    expect(generation(["a"], ["a", "b.c"], { streamUsage: true })).toMatchObject({
      capTargets: [["a"], ["b", "c"]],
      streamUsage: true,
    });
  });
});
