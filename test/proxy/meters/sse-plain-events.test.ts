// The plain events' cheap path: which events it counts on its own and where it hands over to the careful
// path, and — what matters — that a stream read through both comes out exactly as through the careful path
// alone (fed one byte at a time, every event goes the careful way): the same bytes sent on, the same usage,
// the same count of events.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SseMeter } from "../../../src/proxy/meters/sse-meter.js";
import { PlainEvents } from "../../../src/proxy/meters/sse-plain-events.js";

const token = (text: string) =>
  `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}\n\n`;
const finish =
  'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n';
const usageChunk =
  'data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}\n\n';

function plainRun(text: string, strip = false, max = 1 << 20): { end: number; events: number } {
  const plain = new PlainEvents(max, strip);
  const chunk = Buffer.from(text);
  if (!plain.begin(chunk)) return { end: -1, events: 0 };
  return { end: plain.run(0), events: plain.events };
}

describe("PlainEvents", () => {
  it("counts a run of one-line data events, [DONE] and comments not counted", () => {
    const text = `${token("a")}: ping\n\n${token("b")}data: [DONE]\n\n`;
    expect(plainRun(text)).toEqual({ end: Buffer.byteLength(text), events: 2 });
  });

  it("stops at an event that may carry usage, and in strip mode at a finished choice too", () => {
    expect(plainRun(token("a") + usageChunk)).toEqual({ end: token("a").length, events: 1 });
    expect(plainRun(token("a") + finish)).toEqual({ end: (token("a") + finish).length, events: 2 });
    expect(plainRun(token("a") + finish, true)).toEqual({ end: token("a").length, events: 1 });
  });

  it("stops at an event of several lines, one cut by the chunk's end, and one near the size limit", () => {
    expect(plainRun(`${token("a")}event: x\ndata: y\n\n`).end).toBe(token("a").length);
    expect(plainRun(`${token("a")}data: {"cut`).end).toBe(token("a").length);
    expect(plainRun(`${token("a")}data: y\n`).end).toBe(token("a").length);
    expect(plainRun(token("a") + token("long text"), false, token("a").length).end).toBe(token("a").length);
  });

  it("leaves a chunk with a CR to the careful path", () => {
    expect(plainRun("data: x\r\n\r\n").end).toBe(-1);
  });
});

/** What the meter sends on and reads from `text` cut into pieces of `sizes` (cycled). */
function read(text: string, strip: boolean, sizes: number[]) {
  const meter = new SseMeter({ strip, maxEventBytes: 256 });
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length] as number;
    out.push(...meter.push(bytes.subarray(at, at + size)));
    at += size;
  }
  out.push(...meter.end());
  return { out: Buffer.concat(out).toString(), usage: meter.usage, events: meter.events };
}

describe("SseMeter with the plain events' path", () => {
  const event = fc.oneof(
    { weight: 8, arbitrary: fc.string({ maxLength: 12 }).map((s) => token(s.replace(/["\\\n\r]/g, ""))) },
    fc.constantFrom(
      finish,
      usageChunk,
      "data: [DONE]\n\n",
      ": ping\n\n",
      "event: message\ndata: {}\n\n",
      'data: {"choices":[{"delta":{"content":"x"}}],"usage":{"prompt_tokens":0,"completion_tokens":0}}\n\n',
      'data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2},"timings":{"predicted_ms":1}}\n\n',
      "data: a\ndata: b\n\n",
      "data: x\r\n\r\n",
      "\n",
      `data: ${"x".repeat(300)}\n\n`,
      "data:[DONE]\n\n",
    ),
  );

  it("sends, reads and counts every stream as the careful path alone does, however it is cut", () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 30 }).map((events) => events.join("")),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (text, sizes, strip) => {
          expect(read(text, strip, sizes)).toEqual(read(text, strip, [1]));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("sends a chunk of plain events on as the chunk itself, in strip mode", () => {
    const meter = new SseMeter({ strip: true });
    const chunk = Buffer.from(token("a") + token("b"));
    const out = meter.push(chunk);
    expect(out).toHaveLength(1);
    expect(out[0]).toBe(chunk);
    expect(meter.events).toBe(2);
  });
});
