// The exchange span's cache counts (gen_ai.usage.cache_read.input_tokens and cache_creation.input_tokens):
// present when the model server reported cache counts in either format, as charged; absent otherwise.

import { describe, expect, it } from "vitest";
import { GatewayRequest } from "../../../src/core/request.js";
import type { UsageReport } from "../../../src/core/usage.js";
import { cacheTokens } from "../../../src/observability/otel/gen-ai.js";

function settled(usage: UsageReport, cachedTokens: number, cacheWriteTokens = 0): GatewayRequest {
  const request = new GatewayRequest("req-1", "POST", "/v1/chat/completions", 0);
  request.usage = usage;
  request.cachedTokens = cachedTokens;
  request.cacheWriteTokens = cacheWriteTokens;
  return request;
}

describe("cacheTokens", () => {
  it("reports the charged cached count of an OpenAI-style report, with no cache writes", () => {
    expect(cacheTokens(settled({ prompt: 1093, cached: 1088 }, 1088))).toEqual({ read: 1088, write: null });
  });

  it("reports the charged counts of an Anthropic-style report, writes included", () => {
    const request = settled({ prompt: 100, cacheRead: 600, cacheCreation: 40 }, 600, 40);
    expect(cacheTokens(request)).toEqual({ read: 600, write: 40 });
  });

  it("reports what was charged, not what was claimed: a faulty report's count is 0", () => {
    expect(cacheTokens(settled({ prompt: 5, cached: 6 }, 0))).toEqual({ read: 0, write: null });
  });

  it("reports nothing when the server reported no cache count", () => {
    expect(cacheTokens(settled({ prompt: 39, completion: 8 }, 0))).toBeNull();
  });
});
