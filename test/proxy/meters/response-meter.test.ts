import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ResponseMeter } from "../../../src/proxy/meters/response-meter.js";

const LIMITS = { maxEventBytes: 1 << 20, maxJsonBytes: 4 << 20, maxDecompressedBytes: 1 << 20 };
const usage = '{"usage":{"prompt_tokens":7,"completion_tokens":9}}';

async function run(headers: Record<string, string>, body: Buffer, limits = LIMITS) {
  const meter = new ResponseMeter(headers, null, limits);
  const sent: Buffer[] = [];
  for (let i = 0; i < body.length; i += 4096) {
    const out = meter.push(body.subarray(i, i + 4096));
    sent.push(...(Array.isArray(out) ? out : [out]));
  }
  meter.end();
  return { result: await meter.result(), sent: Buffer.concat(sent), meter };
}

describe("ResponseMeter", () => {
  it("meters a compressed response on a decompressed copy and passes the compressed bytes on", async () => {
    const body = gzipSync(Buffer.from(usage));
    const { result, sent } = await run(
      { "content-type": "application/json", "content-encoding": "gzip" },
      body,
    );
    expect(sent.equals(body)).toBe(true);
    expect(result).toEqual({ usage: { prompt: 7, completion: 9 }, events: null, read: true });
  });

  it("stops decompressing at metering.maxDecompressedBytes: a bomb costs at most that, and is estimated", async () => {
    // 64 MiB of one endless SSE line, gzip-compressed to about 64 KiB.
    const bomb = gzipSync(
      Buffer.concat([
        Buffer.from("data: "),
        Buffer.alloc(64 << 20, "a"),
        Buffer.from(`\n\ndata: ${usage}\n\n`),
      ]),
    );
    const { result, sent } = await run(
      { "content-type": "text/event-stream", "content-encoding": "gzip" },
      bomb,
    );
    expect(sent.equals(bomb)).toBe(true);
    expect(result.read).toBe(false);
    expect(result.usage).toEqual({});
  });

  it("reads TGI's counts from the headers, the body's report winning", async () => {
    const { result } = await run(
      { "content-type": "application/json", "x-prompt-tokens": "3", "x-generated-tokens": "5" },
      Buffer.from('{"generated_text":"hi"}'),
    );
    expect(result.usage).toEqual({ prompt: 3, completion: 5 });
  });

  it("meters Ollama's newline-delimited JSON", async () => {
    const { result } = await run(
      { "content-type": "application/x-ndjson" },
      Buffer.from('{"done":false}\n{"done":true,"prompt_eval_count":4,"eval_count":2}\n'),
    );
    expect(result).toEqual({ usage: { prompt: 4, completion: 2 }, events: 2, read: true });
  });

  it("says it could not read an encoding it does not know", async () => {
    const { result } = await run(
      { "content-type": "application/json", "content-encoding": "lzma" },
      Buffer.from(usage),
    );
    expect(result.read).toBe(false);
  });
});
