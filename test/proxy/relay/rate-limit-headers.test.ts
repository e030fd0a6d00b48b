// The rate-limit headers of OpenAI's API for a key with per-minute limits: the requests' three for an rpm, the
// tokens' three for a tpm, none without either; resets in Go's duration format, as OpenAI writes them and its
// SDKs parse them.

import { describe, expect, it } from "vitest";
import {
  AddingRateLimitHeaders,
  goDuration,
  rateLimitHeaders,
} from "../../../src/proxy/relay/rate-limit-headers.js";
import { RecordingHandler } from "./recording-handler.js";

describe("rateLimitHeaders", () => {
  it("gives a key without per-minute limits no headers", () => {
    expect(rateLimitHeaders(null, null)).toBeNull();
  });

  it("gives the requests' limit, what remains of it and when it is whole again, for a key with an rpm", () => {
    expect(rateLimitHeaders({ limit: 60, remaining: 59, resetMs: 1000 }, null)).toEqual({
      "x-ratelimit-limit-requests": "60",
      "x-ratelimit-remaining-requests": "59",
      "x-ratelimit-reset-requests": "1s",
    });
  });

  it("gives the tokens' three for a key with a tpm, and all six for a key with both", () => {
    const tpm = { limit: 150_000, remaining: 149_000, resetMs: 400 };
    expect(rateLimitHeaders(null, tpm)).toEqual({
      "x-ratelimit-limit-tokens": "150000",
      "x-ratelimit-remaining-tokens": "149000",
      "x-ratelimit-reset-tokens": "400ms",
    });
    expect(rateLimitHeaders({ limit: 10, remaining: 0, resetMs: 6000 }, tpm)).toEqual({
      "x-ratelimit-limit-requests": "10",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "6s",
      "x-ratelimit-limit-tokens": "150000",
      "x-ratelimit-remaining-tokens": "149000",
      "x-ratelimit-reset-tokens": "400ms",
    });
  });
});

describe("goDuration", () => {
  // What Go's time.Duration.String() prints for the same number of milliseconds.
  it.each([
    [0, "0s"],
    [-5, "0s"],
    [1, "1ms"],
    [20, "20ms"],
    [999, "999ms"],
    [1000, "1s"],
    [1500, "1.5s"],
    [59_999, "59.999s"],
    [60_000, "1m0s"],
    [61_001, "1m1.001s"],
    [360_000, "6m0s"],
    [3_600_000, "1h0m0s"],
    [3_723_000, "1h2m3s"],
    [90_061_500, "25h1m1.5s"],
  ])("writes %i ms as %s", (ms, text) => {
    expect(goDuration(ms)).toBe(text);
  });
});

describe("AddingRateLimitHeaders", () => {
  it("adds the key's headers to the answer's at its start, and leaves its body alone", () => {
    const next = new RecordingHandler();
    const limits = { "x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "59" };
    const adding = new AddingRateLimitHeaders(next, limits);
    adding.onResponseStart(200, { "content-type": "application/json" }, {});
    adding.onResponseData(Buffer.from("{}"));
    adding.onResponseEnd();
    expect(next.headers).toEqual({ "content-type": "application/json", ...limits });
    expect(next.events).toEqual(["start 200", "data {}", "end"]);
  });
});
