import { describe, expect, it } from "vitest";
import { JsonMeter, objectAfter } from "../../../src/proxy/meters/json-meter.js";

describe("JsonMeter", () => {
  it("reads OpenAI and Responses/Anthropic usage from a whole body", () => {
    const openai = new JsonMeter();
    openai.push(Buffer.from('{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":'));
    openai.push(Buffer.from('9,"total_tokens":16}}'));
    expect(openai.usage()).toEqual({ prompt: 7, completion: 9, total: 16 });
    const anthropic = new JsonMeter();
    anthropic.push(Buffer.from('{"content":[],"usage":{"input_tokens":3,"output_tokens":4}}'));
    expect(anthropic.usage()).toEqual({ prompt: 3, completion: 4 });
  });

  it("keeps only a bounded tail of a huge body and still finds the usage at its end", () => {
    const meter = new JsonMeter(1024);
    meter.push(Buffer.from('{"data":"'));
    // Tiny chunks too: what is kept is cut back in whole copies, never one chunk at a time.
    for (let i = 0; i < 200; i++) meter.push(Buffer.alloc(10_000, "a"));
    for (let i = 0; i < 100_000; i++) meter.push(Buffer.from("a"));
    meter.push(Buffer.from('","usage":{"prompt_tokens":100,"completion_tokens":200,"detail":{"x":"}"}}}'));
    expect(meter.usage()).toEqual({ prompt: 100, completion: 200 });
    const kept = (meter as unknown as { kept: number }).kept;
    expect(kept).toBeLessThan(2 * 64 * 1024);
  });

  it("reports no usage for a body that is not JSON or has none", () => {
    const meter = new JsonMeter();
    meter.push(Buffer.from("<html>oops</html>"));
    expect(meter.usage()).toEqual({});
  });

  it("reports counts as they are, for the charging policy to judge", () => {
    const meter = new JsonMeter();
    meter.push(Buffer.from('{"usage":{"prompt_tokens":-1,"completion_tokens":2.5}}'));
    expect(meter.usage()).toEqual({ prompt: -1, completion: 2.5 });
  });
});

describe("objectAfter", () => {
  it("skips braces inside strings and escaped quotes", () => {
    const text = 'x "usage": {"a": "}\\"{", "b": {"c": 1}} tail';
    expect(objectAfter(text, 0)).toBe('{"a": "}\\"{", "b": {"c": 1}}');
    expect(objectAfter('"usage": {"a": 1', 0)).toBeNull();
  });
});
