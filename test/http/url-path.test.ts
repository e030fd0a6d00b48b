// The path of a request's URL, as the routers match it.

import { describe, expect, it } from "vitest";
import { pathOf } from "../../src/http/url-path.js";

describe("pathOf", () => {
  it.each([
    ["/v1/chat/completions", "/v1/chat/completions"],
    ["/v1/models?limit=5", "/v1/models"],
    ["/a?b?c", "/a"],
    ["/?x", "/"],
    ["", ""],
  ])("gives %j the path %j", (url, path) => {
    expect(pathOf(url)).toBe(path);
  });

  it("gives / for a request without a URL", () => {
    expect(pathOf(undefined)).toBe("/");
  });
});
