// What the gateway takes out of a stream it asked for usage, event by event, so that the client gets the
// stream it would have had without stream_options.include_usage: the usage chunk dropped (llama.cpp's
// timings put back on the last choice chunk), Ollama's zero usage taken off every chunk, and what a server
// sends anyway left alone. Chunks are edited in place, members as they came.

import { describe, expect, it } from "vitest";
import { type Emit, UsageStripper } from "../../../src/proxy/meters/usage-strip.js";

/** An event's data as the SSE meter hands it over: its bytes and its parsed JSON. */
function event(text: string): [Buffer, unknown] {
  return [Buffer.from(text), JSON.parse(text)];
}

const content =
  '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}';
const last =
  '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}';
const usage =
  '{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}';

const KEEP: Emit = { which: "current", data: null };
const HELD: Emit = { which: "held", data: null };

describe("UsageStripper", () => {
  it("drops the usage chunk the option added, and sends the last choice chunk held until then as it came", () => {
    const strip = new UsageStripper(false);
    expect(strip.event(...event(content))).toEqual({ emit: [KEEP], hold: false });
    expect(strip.event(...event(last))).toEqual({ emit: [], hold: true });
    expect(strip.event(...event(usage))).toEqual({ emit: [HELD], hold: false });
    expect(strip.event(Buffer.from("[DONE]"), undefined)).toEqual({ emit: [KEEP], hold: false });
    expect(strip.end()).toEqual([]);
  });

  it("puts llama.cpp's timings back on the last choice chunk they were moved from", () => {
    const strip = new UsageStripper(false);
    strip.event(...event(last));
    const withTimings =
      '{"id":"c1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2},"timings":{"predicted_ms": 12.5}}';
    const verdict = strip.event(...event(withTimings));
    expect(verdict.hold).toBe(false);
    expect(verdict.emit).toHaveLength(1);
    expect(verdict.emit[0]?.which).toBe("held");
    const merged = String(verdict.emit[0]?.data);
    // The timings' bytes as llama.cpp wrote them, after the chunk's own members.
    expect(merged).toBe(`${last.slice(0, -1)},"timings":{"predicted_ms": 12.5}}`);
  });

  it("takes Ollama's zero usage off every chunk, keeping each other member's bytes as they came", () => {
    const strip = new UsageStripper(false);
    const zero =
      '{"model": "m","choices":[ {"delta":{"content":"a"},"finish_reason":null} ],"usage":{"prompt_tokens":0,"completion_tokens":0}}';
    const verdict = strip.event(...event(zero));
    expect(verdict.hold).toBe(false);
    expect(String(verdict.emit[0]?.data)).toBe(
      '{"model": "m","choices":[ {"delta":{"content":"a"},"finish_reason":null} ]}',
    );
  });

  it("leaves what a server sends anyway: SGLang's usage on its last choice chunk, vLLM's usage: null", () => {
    const strip = new UsageStripper(false);
    const sglangLast =
      '{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}';
    expect(strip.event(...event(sglangLast))).toEqual({ emit: [], hold: true });
    expect(strip.end()).toEqual([HELD]);
    const vllm = '{"choices":[{"delta":{"content":"x"},"finish_reason":null}],"usage":null}';
    expect(strip.event(...event(vllm))).toEqual({ emit: [KEEP], hold: false });
  });

  it("takes the usage off every chunk when the client asked for continuous usage without include_usage", () => {
    const strip = new UsageStripper(true);
    const running =
      '{"choices":[{"delta":{"content":"x"},"finish_reason":null}],"usage":{"prompt_tokens":5,"completion_tokens":1}}';
    expect(String(strip.event(...event(running)).emit[0]?.data)).toBe(
      '{"choices":[{"delta":{"content":"x"},"finish_reason":null}]}',
    );
    const finalChunk =
      '{"choices":[{"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}';
    expect(strip.event(...event(finalChunk))).toEqual({ emit: [], hold: true });
    expect(strip.event(...event(usage))).toEqual({
      emit: [{ which: "held", data: Buffer.from('{"choices":[{"delta":{},"finish_reason":"length"}]}') }],
      hold: false,
    });
  });

  it("sends a held chunk on, in order, when the next event is not the usage chunk", () => {
    const strip = new UsageStripper(false);
    strip.event(...event(last));
    expect(strip.event(...event(content))).toEqual({ emit: [HELD, KEEP], hold: false });
    strip.event(...event(last));
    expect(strip.event(Buffer.from("not json"), undefined)).toEqual({ emit: [HELD, KEEP], hold: false });
    strip.event(...event(last));
    expect(strip.event(null, undefined)).toEqual({ emit: [HELD, KEEP], hold: false });
    strip.event(...event(last));
    expect(strip.event(...event(last))).toEqual({ emit: [HELD], hold: true });
  });

  it("sends a usage chunk with extras on without its usage when nothing is held to take them", () => {
    const strip = new UsageStripper(false);
    const verdict = strip.event(...event('{"choices":[],"usage":{"prompt_tokens":1},"timings":{"n":1}}'));
    expect(verdict).toEqual({
      emit: [{ which: "current", data: Buffer.from('{"choices":[],"timings":{"n":1}}') }],
      hold: false,
    });
    expect(
      strip.event(...event('{"choices":[],"usage":{"prompt_tokens":1},"system_fingerprint":"fp"}')),
    ).toEqual({
      emit: [],
      hold: false,
    });
  });

  it("sends what is still held when the stream ends, once", () => {
    const strip = new UsageStripper(false);
    strip.event(...event(last));
    expect(strip.end()).toEqual([HELD]);
    expect(strip.end()).toEqual([]);
  });
});
