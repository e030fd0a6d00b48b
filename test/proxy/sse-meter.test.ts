import { describe, expect, it } from "vitest";
import { SseMeter } from "../../src/proxy/sse-meter.js";

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] })}\n\n`;
const usageChunk = `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 11, completion_tokens: 3 } })}\n\n`;
const stream = `${chunk("Hel") + chunk("lo") + chunk("!") + usageChunk}data: [DONE]\n\n`;

/** Feeds `text` to the meter in pieces of `size` bytes and returns what it sends on. */
function feed(meter: SseMeter, text: string, size: number): string {
  const bytes = Buffer.from(text);
  let out = "";
  for (let i = 0; i < bytes.length; i += size) out += meter.push(bytes.subarray(i, i + size));
  return out + meter.end();
}

describe("SseMeter in scan mode", () => {
  it("reads the usage however the stream is cut into chunks", () => {
    for (const size of [1, 2, 3, 7, 64, 10_000]) {
      const meter = new SseMeter(false);
      expect(feed(meter, stream, size)).toBe("");
      expect(meter.usage).toEqual({ promptTokens: 11, completionTokens: 3 });
      expect(meter.events).toBe(4);
    }
  });

  it("understands CRLF and CR line endings and multi-line data", () => {
    const meter = new SseMeter(false);
    const text = `event: x\r\ndata: {"usage":\r\ndata: {"input_tokens": 5, "output_tokens": 6}}\r\n\r\ndata: [DONE]\r\r`;
    feed(meter, text, 3);
    expect(meter.usage).toEqual({ promptTokens: 5, completionTokens: 6 });
  });

  it("merges Anthropic's split usage: input in message_start, output in message_delta", () => {
    const meter = new SseMeter(false);
    const text =
      `event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":25,"output_tokens":1}}}\n\n` +
      `event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"Hi"}}\n\n` +
      `event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":15}}\n\n`;
    feed(meter, text, 5);
    expect(meter.usage).toEqual({ promptTokens: 25, completionTokens: 15 });
  });

  it("reads Responses API usage nested in response.completed", () => {
    const meter = new SseMeter(false);
    feed(
      meter,
      `event: response.completed\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":9,"output_tokens":4}}}\n\n`,
      4,
    );
    expect(meter.usage).toEqual({ promptTokens: 9, completionTokens: 4 });
  });

  it("keeps multi-byte characters split across chunks intact", () => {
    const meter = new SseMeter(true);
    const text = chunk("Привет, мир — ✓") + usageChunk;
    expect(feed(meter, text, 1)).toBe(chunk("Привет, мир — ✓"));
  });
});

describe("SseMeter in strip mode", () => {
  it("passes every event through except the usage-only chunk, byte for byte", () => {
    for (const size of [1, 5, 17, 10_000]) {
      const meter = new SseMeter(true);
      expect(feed(meter, stream, size)).toBe(`${chunk("Hel") + chunk("lo") + chunk("!")}data: [DONE]\n\n`);
      expect(meter.usage).toEqual({ promptTokens: 11, completionTokens: 3 });
    }
  });

  it("keeps a chunk that has choices as well as usage (the client would have got it anyway)", () => {
    const meter = new SseMeter(true);
    const both = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "x" } }], usage: { prompt_tokens: 1, completion_tokens: 1 } })}\n\n`;
    expect(feed(meter, both, 3)).toBe(both);
  });

  it("sends on a giant event unparsed instead of holding it", () => {
    const meter = new SseMeter(true, 1000);
    const giant = `data: ${"x".repeat(5000)}\n\n`;
    const out = feed(meter, giant + usageChunk, 100);
    expect(out).toBe(giant);
    expect(meter.usage).toEqual({ promptTokens: 11, completionTokens: 3 });
  });

  it("sends on a stream that ends without a blank line", () => {
    const meter = new SseMeter(true);
    expect(feed(meter, `${chunk("a")}data: [DONE]`, 4)).toBe(`${chunk("a")}data: [DONE]`);
  });
});
