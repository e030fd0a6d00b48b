// The bodies kept for a request's log line and recent-requests entry: the response captured up to a limit,
// each body cut to the limit asked for when it is read, a character cut in two shown as U+FFFD.

import { describe, expect, it } from "vitest";
import { type AdmittedRequest, GatewayRequest } from "../../../src/core/request.js";
import { BodyCapture, CapturingBodies } from "../../../src/proxy/relay/body-capture.js";
import { RecordingHandler } from "./recording-handler.js";

describe("BodyCapture", () => {
  it("keeps the response as it came, chunk after chunk, and the request as sent", () => {
    const capture = new BodyCapture(1000);
    capture.add(Buffer.from('{"choices":'));
    capture.add(Buffer.alloc(0));
    capture.add(Buffer.from("[]}"));
    const bodies = capture.bodies(Buffer.from('{"model":"m"}'));
    expect(bodies.response(1000)).toBe('{"choices":[]}');
    expect(bodies.request(1000)).toBe('{"model":"m"}');
  });

  it("stops capturing once the limit is reached, and cuts each body to the limit it is read with", () => {
    const capture = new BodyCapture(4);
    capture.add(Buffer.from("abc"));
    capture.add(Buffer.from("defg")); // taken whole: the capture was under its limit when it came
    capture.add(Buffer.from("hij")); // over the limit: dropped
    const bodies = capture.bodies(Buffer.from("request body"));
    expect(bodies.response(100)).toBe("abcdefg");
    expect(bodies.response(5)).toBe("abcde");
    expect(bodies.request(7)).toBe("request");
    expect(bodies.request(0)).toBe("");
  });

  it("shows a multi-byte character cut at the limit as U+FFFD, not as broken bytes", () => {
    const capture = new BodyCapture(100);
    capture.add(Buffer.from("₽₽"));
    const bodies = capture.bodies(Buffer.from("ё"));
    expect(bodies.response(4)).toBe("₽\uFFFD");
    expect(bodies.request(1)).toBe("\uFFFD");
    expect(bodies.request(2)).toBe("ё");
  });
});

describe("CapturingBodies", () => {
  it("keeps what it hands on to the client, and writes both bodies on the request when it finishes", () => {
    const next = new RecordingHandler();
    const capturing = new CapturingBodies(next, 5, Buffer.from("asked"));
    capturing.onResponseStart(200, {}, {});
    capturing.onResponseData(Buffer.from("abc"));
    capturing.onResponseData(Buffer.from("def"));
    capturing.onResponseData(Buffer.from("ghi"));
    capturing.onResponseEnd();
    const request = new GatewayRequest("r", "POST", "/v1/chat/completions", 0) as AdmittedRequest;
    expect(capturing.onFinish(request)).toBeUndefined();
    expect(next.events).toEqual(["start 200", "data abc", "data def", "data ghi", "end", "finish"]);
    expect(request.bodies?.response(100)).toBe("abcdef");
    expect(request.bodies?.request(100)).toBe("asked");
  });
});
