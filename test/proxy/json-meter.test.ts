import { describe, expect, it } from "vitest";
import { JsonMeter, objectAfter } from "../../src/proxy/json-meter.js";

describe("JsonMeter", () => {
  it("reads OpenAI and Responses/Anthropic usage from a whole body", () => {
    const openai = new JsonMeter();
    openai.push(Buffer.from('{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":'));
    openai.push(Buffer.from('9,"total_tokens":16}}'));
    expect(openai.usage()).toEqual({ promptTokens: 7, completionTokens: 9 });
    const anthropic = new JsonMeter();
    anthropic.push(Buffer.from('{"content":[],"usage":{"input_tokens":3,"output_tokens":4}}'));
    expect(anthropic.usage()).toEqual({ promptTokens: 3, completionTokens: 4 });
  });

  it("keeps only a bounded tail of a huge body and still finds the usage at its end", () => {
    const meter = new JsonMeter(1024);
    const chunk = 10_000;
    meter.push(Buffer.from('{"data":"'));
    for (let i = 0; i < 200; i++) meter.push(Buffer.alloc(chunk, "a"));
    meter.push(Buffer.from('","usage":{"prompt_tokens":100,"completion_tokens":200,"detail":{"x":"}"}}}'));
    expect(meter.usage()).toEqual({ promptTokens: 100, completionTokens: 200 });
    // What it holds is bounded by the tail window, not the body size: whole chunks are dropped from the
    // front while what remains without them still fills the 64 KiB tail, so at least the tail is kept and
    // less than the tail plus one chunk.
    const tail = 64 * 1024;
    const kept = (meter as unknown as { kept: number }).kept;
    expect(kept).toBeGreaterThanOrEqual(tail);
    expect(kept).toBeLessThan(tail + chunk);
  });

  it("reports no usage for a body that is not JSON or has none", () => {
    const meter = new JsonMeter();
    meter.push(Buffer.from("<html>oops</html>"));
    expect(meter.usage()).toEqual({});
  });

  it("ignores negative or fractional token counts", () => {
    const meter = new JsonMeter();
    meter.push(Buffer.from('{"usage":{"prompt_tokens":-1,"completion_tokens":2.5}}'));
    expect(meter.usage()).toEqual({});
  });
});

describe("objectAfter", () => {
  it("skips braces inside strings and escaped quotes", () => {
    const text = 'x "usage": {"a": "}\\"{", "b": {"c": 1}} tail';
    expect(objectAfter(text, 0)).toBe('{"a": "}\\"{", "b": {"c": 1}}');
    expect(objectAfter('"usage": {"a": 1', 0)).toBeNull();
  });
});
