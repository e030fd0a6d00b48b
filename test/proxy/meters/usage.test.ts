import { describe, expect, it } from "vitest";
import type { UsageReport } from "../../../src/core/usage.js";
import { collectUsage, mayCarryUsage, usageFromHeaders } from "../../../src/proxy/meters/usage.js";

const read = (...values: unknown[]) => {
  const into: UsageReport = {};
  for (const value of values) collectUsage(value, into);
  return into;
};

describe("collectUsage", () => {
  it("reads OpenAI, Responses, Anthropic, Ollama and TGI shapes, the last report of each count winning", () => {
    expect(read({ usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } })).toEqual({
      prompt: 1,
      completion: 2,
      total: 3,
    });
    expect(
      read({ type: "response.completed", response: { usage: { input_tokens: 4, output_tokens: 5 } } }),
    ).toEqual({
      prompt: 4,
      completion: 5,
    });
    expect(
      read(
        {
          type: "message_start",
          message: { usage: { input_tokens: 9, output_tokens: 1, cache_read_input_tokens: 3 } },
        },
        { type: "message_delta", usage: { output_tokens: 7 } },
      ),
    ).toEqual({ prompt: 9, completion: 7, cacheRead: 3 });
    expect(read({ done: true, prompt_eval_count: 31, eval_count: 8 })).toEqual({ prompt: 31, completion: 8 });
    expect(read({ details: { input_length: 3, generated_tokens: 5 } })).toEqual({ prompt: 3, completion: 5 });
  });

  it("reads cached prompt tokens from OpenAI-style details, in chat and Responses shapes", () => {
    const details = {
      prompt_tokens: 1093,
      completion_tokens: 8,
      prompt_tokens_details: { cached_tokens: 1088 },
    };
    expect(read({ usage: details })).toEqual({ prompt: 1093, completion: 8, cached: 1088 });
    const responses = { input_tokens: 17, output_tokens: 8, input_tokens_details: { cached_tokens: 5 } };
    expect(read({ response: { usage: responses } })).toEqual({ prompt: 17, completion: 8, cached: 5 });
    // vLLM and SGLang write null details when nothing was cached or reporting is off: no cached count.
    expect(read({ usage: { prompt_tokens: 31, prompt_tokens_details: null } })).toEqual({ prompt: 31 });
    // Reasoning tokens are completion tokens already: the details' count is not read apart.
    const reasoning = { completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 6 } };
    expect(read({ usage: reasoning })).toEqual({ completion: 9 });
    // A stream's later report without details keeps the cached count an earlier one gave.
    expect(read({ usage: details }, { usage: { prompt_tokens: 1093, completion_tokens: 9 } })).toEqual({
      prompt: 1093,
      completion: 9,
      cached: 1088,
    });
    expect(read({ usage: { prompt_tokens: 3, prompt_tokens_details: { cached_tokens: "x" } } }).cached).toBe(
      "x",
    );
  });

  it("takes null as not reported, and anything else as reported, for the policy to judge", () => {
    expect(read({ usage: { prompt_tokens: 4, completion_tokens: null } })).toEqual({ prompt: 4 });
    expect(read({ usage: { prompt_tokens: "4", completion_tokens: -1 } })).toEqual({
      prompt: "4",
      completion: -1,
    });
    expect(read({ usage: null }, "text", 5, null)).toEqual({});
  });
});

describe("usageFromHeaders", () => {
  it("reads TGI's x-prompt-tokens and x-generated-tokens, keeping what is not digits as it is", () => {
    expect(usageFromHeaders({ "x-prompt-tokens": "3", "x-generated-tokens": "5" })).toEqual({
      prompt: 3,
      completion: 5,
    });
    expect(usageFromHeaders({ "x-prompt-tokens": "-3" })).toEqual({ prompt: "-3" });
    expect(usageFromHeaders({})).toEqual({});
  });
});

describe("mayCarryUsage", () => {
  it("spots every usage shape's field names", () => {
    expect(mayCarryUsage('{"prompt_tokens":1}')).toBe(true);
    expect(mayCarryUsage(Buffer.from('{"eval_count":1}'))).toBe(true);
    expect(mayCarryUsage('{"choices":[{"delta":{"content":"hi"}}]}')).toBe(false);
  });
});
