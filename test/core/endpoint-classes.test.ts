// The path rules of `endpoints` in the configuration: "/path", "METHOD /path", either ending in "/*".

import { describe, expect, it } from "vitest";
import { isEndpointPattern } from "../../src/core/endpoint-classes.js";

describe("endpoint patterns", () => {
  it.each(["/v1/my-endpoint", "POST /props", "/prefix/*", "get /health", "/"])("accept %j", (pattern) => {
    expect(isEndpointPattern(pattern)).toBe(true);
  });

  it.each([
    "v1/no-slash",
    "POST  /two-spaces",
    "/with?query",
    "/with#fragment",
    "/with space",
    "PO5T /x",
    "",
  ])("refuse %j", (pattern) => {
    expect(isEndpointPattern(pattern)).toBe(false);
  });
});
