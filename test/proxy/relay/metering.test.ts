// Metering driven alone, between a fake upstream's events and a recorder standing in for the rest of the
// chain: reading along (the client gets each chunk before the meter reads it), strip mode (what the gateway
// asked for is taken out of the stream, several pieces of one chunk leave in one write, and the length is
// dropped), a compressed stream read along instead of stripped, an abort, and no answer at all.

import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { type AdmittedRequest, GatewayRequest } from "../../../src/core/request.js";
import { Metering } from "../../../src/proxy/relay/metering.js";
import { RecordingHandler, recordingSocket } from "./recording-handler.js";

const LIMITS = { maxEventBytes: 1 << 20, maxJsonBytes: 4 << 20, maxDecompressedBytes: 1 << 20 };
const STRIP_LAST = { everyChunk: false };

const chunk = (content: string) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
const finish = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`;
const usageChunk = `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 3 } })}\n\n`;
const done = "data: [DONE]\n\n";

function setUp(strip: { everyChunk: boolean } | null) {
  const next = new RecordingHandler();
  const metering = new Metering(next, strip, LIMITS, recordingSocket(next));
  const request = new GatewayRequest("r1", "POST", "/v1/chat/completions", 0) as AdmittedRequest;
  return { next, metering, request };
}

describe("Metering", () => {
  it("reads a JSON answer along: every chunk goes on as it came, and the usage is written on the request", async () => {
    const { next, metering, request } = setUp(null);
    const headers = { "content-type": "application/json", "content-length": "58" };
    metering.onResponseStart(200, headers, { ...headers });
    const [first, second] = ['{"usage":{"prompt_tokens":7,', '"completion_tokens":9}}'];
    metering.onResponseData(Buffer.from(first));
    metering.onResponseData(Buffer.from(second));
    metering.onResponseEnd();
    const pending = metering.onFinish(request);
    expect(pending).toBeInstanceOf(Promise);
    await pending;
    expect(next.headers).toBe(headers);
    expect(next.events).toEqual([
      "start 200",
      'data {"usage":{"prompt_tokens":7,',
      'data "completion_tokens":9}}',
      "end",
      "finish",
    ]);
    expect(request.metered).toBe(true);
    expect(request.usage).toEqual({ prompt: 7, completion: 9 });
    expect(request.events).toBeNull();
    expect(request.responseBytes).toBe(first.length + second.length);
  });

  it("strips the usage the gateway asked for out of a stream, several pieces of a chunk in one write", async () => {
    const { next, metering, request } = setUp(STRIP_LAST);
    const headers = { "content-type": "text/event-stream", "content-length": "999" };
    metering.onResponseStart(200, headers, { ...headers });
    metering.onResponseData(Buffer.from(chunk("Hel") + finish));
    metering.onResponseData(Buffer.from(usageChunk + done));
    metering.onResponseEnd();
    await metering.onFinish(request);
    expect(next.body()).toBe(chunk("Hel") + finish + done);
    // The second chunk's pieces (the held finish, then [DONE]) leave in one write.
    const second = next.events.slice(2);
    expect(second[0]).toBe("cork");
    expect(second.slice(-3)).toEqual(["uncork", "end", "finish"]);
    expect(
      second
        .slice(1, -3)
        .map((event) => event.slice(5))
        .join(""),
    ).toBe(finish + done);
    // The stream is no longer as long as the upstream said; the headers the meter was given are left alone.
    expect(next.headers).toEqual({ "content-type": "text/event-stream" });
    expect(headers["content-length"]).toBe("999");
    expect(request.usage).toEqual({ prompt: 11, completion: 3 });
  });

  it("sends what a stripping meter still holds at the end together with the end", async () => {
    const { next, metering, request } = setUp(STRIP_LAST);
    metering.onResponseStart(200, {}, { "content-type": "text/event-stream" });
    metering.onResponseData(Buffer.from(chunk("a") + finish));
    metering.onResponseEnd();
    await metering.onFinish(request);
    expect(next.events).toEqual([
      "start 200",
      `data ${chunk("a")}`,
      "cork",
      `data ${finish}`,
      "end",
      "uncork",
      "finish",
    ]);
  });

  it("reads a compressed stream along instead of stripping it: the client gets the upstream's bytes", async () => {
    const { next, metering, request } = setUp(STRIP_LAST);
    const body = gzipSync(Buffer.from(chunk("a") + usageChunk + done));
    const headers = {
      "content-type": "text/event-stream",
      "content-encoding": "gzip",
      "content-length": String(body.length),
    };
    metering.onResponseStart(200, headers, { ...headers });
    metering.onResponseData(body);
    metering.onResponseEnd();
    await metering.onFinish(request);
    expect(next.headers).toBe(headers);
    expect(next.events).toHaveLength(4);
    expect(request.usage).toEqual({ prompt: 11, completion: 3 });
    expect(request.responseBytes).toBe(body.length);
  });

  it("on an abort keeps what it read, and tells the rest of the chain", async () => {
    const { next, metering, request } = setUp(null);
    metering.onResponseStart(200, {}, { "content-type": "text/event-stream" });
    metering.onResponseData(Buffer.from(usageChunk));
    metering.onResponseAbort();
    await metering.onFinish(request);
    expect(next.events).toEqual(["start 200", `data ${usageChunk}`, "abort", "finish"]);
    expect(request.usage).toEqual({ prompt: 11, completion: 3 });
  });

  it("meters nothing when no answer came, and waits for no meter", () => {
    const { next, metering, request } = setUp(null);
    metering.onResponseAbort();
    expect(metering.onFinish(request)).toBeUndefined();
    expect(next.events).toEqual(["abort", "finish"]);
    expect(request.metered).toBe(false);
  });

  it("waits for what the later handlers still do before the request may end", async () => {
    const { next, metering, request } = setUp(null);
    let later = false;
    next.pending = Promise.resolve().then(() => {
      later = true;
    });
    metering.onResponseStart(200, {}, { "content-type": "application/json" });
    metering.onResponseEnd();
    await metering.onFinish(request);
    expect(later).toBe(true);
  });
});
