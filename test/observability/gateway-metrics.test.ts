import { describe, expect, it } from "vitest";
import { NO_METRICS } from "../../src/observability/gateway-metrics.js";

describe("NO_METRICS", () => {
  it("has no registry to serve and takes every call without doing anything", () => {
    expect(NO_METRICS.registry).toBeNull();
    for (const [name, value] of Object.entries(NO_METRICS)) {
      if (typeof value === "function") expect((value as () => unknown)(), name).toBeUndefined();
    }
  });
});
