import { describe, expect, it } from "vitest";
import { NdjsonMeter } from "../../../src/proxy/meters/ndjson-meter.js";

describe("NdjsonMeter", () => {
  it("reads Ollama's counts from the final line, however the stream is cut", () => {
    const text =
      '{"model":"m","message":{"content":"Hi"},"done":false}\n' +
      '{"model":"m","message":{"content":"!"},"done":false}\n' +
      '{"model":"m","done":true,"prompt_eval_count":31,"eval_count":8}\n';
    for (const size of [1, 3, 50, 1000]) {
      const meter = new NdjsonMeter(1 << 20);
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += size) meter.push(bytes.subarray(i, i + size));
      meter.end();
      expect(meter.usage).toEqual({ prompt: 31, completion: 8 });
      expect(meter.events).toBe(3);
    }
  });

  it("skips lines that are too long or not JSON", () => {
    const meter = new NdjsonMeter(100);
    meter.push(Buffer.from(`{"x":"${"y".repeat(500)}","eval_count":9}\nnot json _count"\n{"eval_count":2}`));
    meter.end();
    expect(meter.usage).toEqual({ completion: 2 });
  });
});
