// The handler contract's default: a decorator that overrides nothing hands every event on as it came, and
// several pieces handed on for one chunk leave in one write.

import { describe, expect, it } from "vitest";
import type { AdmittedRequest } from "../../../src/core/request.js";
import { Decorator, handOn } from "../../../src/proxy/relay/relay-handler.js";
import { RecordingHandler, recordingSocket } from "./recording-handler.js";

describe("Decorator", () => {
  it("hands the start, each chunk, the end, an abort and the finish on unchanged", async () => {
    const next = new RecordingHandler();
    const pending = Promise.resolve();
    next.pending = pending;
    const decorator = new Decorator(next);
    const headers = { "content-type": "application/json" };
    const upstream = { "content-type": "application/json", connection: "close" };
    decorator.onResponseStart(201, headers, upstream);
    decorator.onResponseData(Buffer.from("ab"));
    decorator.onResponseData(Buffer.from("c"));
    decorator.onResponseEnd();
    decorator.onResponseAbort();
    expect(decorator.onFinish({} as AdmittedRequest)).toBe(pending);
    expect(next.events).toEqual(["start 201", "data ab", "data c", "end", "abort", "finish"]);
    expect(next.headers).toBe(headers);
    expect(next.upstream).toBe(upstream);
  });
});

describe("handOn", () => {
  it("hands one piece on as it is, several corked into one write, none not at all", () => {
    const next = new RecordingHandler();
    const socket = recordingSocket(next);
    handOn(next, [Buffer.from("one")], socket);
    handOn(next, [], socket);
    handOn(next, [Buffer.from("a"), Buffer.from("b")], socket);
    expect(next.events).toEqual(["data one", "cork", "data a", "data b", "uncork"]);
  });
});
