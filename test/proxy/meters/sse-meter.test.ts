import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SseMeter } from "../../../src/proxy/meters/sse-meter.js";

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] })}\n\n`;
const finish = `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`;
const usageChunk = `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 11, completion_tokens: 3 } })}\n\n`;
const stream = `${chunk("Hel") + chunk("lo") + finish + usageChunk}data: [DONE]\n\n`;

/** Feeds `text` to the meter in pieces of `size` bytes and returns what it sends on. */
function feed(meter: SseMeter, text: string, size: number): string {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...meter.push(bytes.subarray(i, i + size)));
  out.push(...meter.end());
  return Buffer.concat(out).toString();
}

describe("SseMeter reading along", () => {
  it("reads the usage however the stream is cut into chunks, and sends nothing itself", () => {
    for (const size of [1, 2, 3, 7, 64, 10_000]) {
      const meter = new SseMeter({ strip: false });
      expect(feed(meter, stream, size)).toBe("");
      expect(meter.usage).toEqual({ prompt: 11, completion: 3 });
      expect(meter.events).toBe(4);
    }
  });

  it("understands CRLF and CR line endings and multi-line data", () => {
    const meter = new SseMeter({ strip: false });
    const text = `event: x\r\ndata: {"usage":\r\ndata: {"input_tokens": 5, "output_tokens": 6}}\r\n\r\ndata: [DONE]\r\r`;
    feed(meter, text, 3);
    expect(meter.usage).toEqual({ prompt: 5, completion: 6 });
  });

  it("skips an event too large to parse, and goes on with the next", () => {
    const meter = new SseMeter({ strip: false, maxEventBytes: 1000 });
    feed(meter, `data: {"usage":{"prompt_tokens":99,"x":"${"x".repeat(5000)}"}}\n\n${usageChunk}`, 100);
    expect(meter.usage).toEqual({ prompt: 11, completion: 3 });
  });

  it("takes time linear in the bytes: one endless line in small chunks is searched once", () => {
    const meter = new SseMeter({ strip: false, maxEventBytes: 1 << 20 });
    const piece = Buffer.alloc(16 << 10, "x");
    const total = 64 << 20;
    meter.push(Buffer.from("data: "));
    for (let sent = 0; sent < total; sent += piece.length) meter.push(piece);
    meter.end();
    expect(meter.scanned).toBeLessThanOrEqual(total + 6);
    expect(meter.usage).toEqual({});
  });

  it("never throws, and searches each byte at most once, whatever arrives", () => {
    const sse = fc.array(
      fc.oneof(
        fc.constantFrom(
          "data: ",
          "data:",
          "event: x",
          ":",
          "\n",
          "\r\n",
          "\r",
          "[DONE]",
          "{",
          "}",
          '"usage":',
          '"prompt_tokens":',
        ),
        fc.string({ maxLength: 20 }),
        fc.jsonValue().map((v) => JSON.stringify(v)),
      ),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(
        sse.map((parts) => parts.join("")),
        fc.integer({ min: 1, max: 17 }),
        fc.boolean(),
        (text, size, strip) => {
          const meter = new SseMeter({ strip, maxEventBytes: 64 });
          const out = feed(meter, text, size);
          expect(meter.scanned).toBeLessThanOrEqual(Buffer.byteLength(text));
          if (!strip) expect(out).toBe("");
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("SseMeter taking out the usage the gateway asked for", () => {
  it("passes every event through byte for byte except the usage-only chunk", () => {
    for (const size of [1, 5, 17, 10_000]) {
      const meter = new SseMeter({ strip: true });
      expect(feed(meter, stream, size)).toBe(`${chunk("Hel") + chunk("lo") + finish}data: [DONE]\n\n`);
      expect(meter.usage).toEqual({ prompt: 11, completion: 3 });
    }
  });

  it("keeps multi-byte characters split across chunks intact", () => {
    const meter = new SseMeter({ strip: true });
    expect(feed(meter, chunk("Привет, мир — ✓") + usageChunk, 1)).toBe(chunk("Привет, мир — ✓"));
  });

  it("passes on every byte of events that carry no usage, holding a last choice chunk only until the next event", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(chunk("a"), finish, "data: [DONE]\n\n", ": ping\n\n"), { maxLength: 8 }),
        (events) => {
          const text = events.join("");
          expect(feed(new SseMeter({ strip: true }), text, 7)).toBe(text);
        },
      ),
    );
  });

  it("sends on a giant event unparsed instead of holding it, with what was held before it", () => {
    const meter = new SseMeter({ strip: true, maxEventBytes: 1000 });
    const giant = `data: ${"x".repeat(5000)}\n\n`;
    expect(feed(meter, finish + giant + usageChunk, 100)).toBe(finish + giant);
    expect(meter.usage).toEqual({ prompt: 11, completion: 3 });
  });

  it("takes usage off every chunk when the client asked only for continuous usage stats", () => {
    const withUsage = (content: string, n: number) =>
      `data: {"choices":[{"index":0,"delta":{"content":"${content}"}}],"usage":{"prompt_tokens":3,"completion_tokens":${n}}}\n\n`;
    const without = (content: string) =>
      `data: {"choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\n`;
    const meter = new SseMeter({ strip: true, everyChunk: true });
    const text = `${withUsage("a", 1) + withUsage("b", 2)}data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\n`;
    expect(feed(meter, text, 9)).toBe(without("a") + without("b"));
    expect(meter.usage).toEqual({ prompt: 3, completion: 2 });
  });

  it("sends on a stream that ends without a blank line", () => {
    const meter = new SseMeter({ strip: true });
    expect(feed(meter, `${chunk("a")}data: [DONE]`, 4)).toBe(`${chunk("a")}data: [DONE]`);
  });
});
