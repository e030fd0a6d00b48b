// The entry a request becomes in its key's recent-requests list, derived from the request by pure functions
// (once without and once with its bodies), and the time written in it.

import { describe, expect, it } from "vitest";
import { RequestLogEntry } from "../../../src/store/usage/request-log-schema.js";
import { entryTime, recentRequest, recentRequestJson } from "../../../src/store/usage/request-log-store.js";
import { BODIES as bodies, ENDED, finishedRequest as finished, requestWith } from "../../helpers/requests.js";

describe("entryTime", () => {
  it("gives exactly what toISOString gives, whether or not the second is the one of the previous call", () => {
    const start = Date.UTC(2026, 11, 31, 23, 59, 58, 990);
    // Steps of 1 ms across second, minute, day and year boundaries, then back in time and forward in jumps.
    const times = [
      ...Array.from({ length: 2100 }, (_, i) => start + i),
      start - 86_400_000,
      start,
      0,
      1,
      9,
      99,
      999,
      1000,
      Date.UTC(1999, 0, 1),
      253_402_300_799_999, // the last millisecond of year 9999
    ];
    for (const time of times) expect(entryTime(time)).toBe(new Date(time).toISOString());
  });

  it("drops a fractional millisecond, as Date does, and leaves years past 9999 to Date's own format", () => {
    expect(entryTime(1_700_000_000_123.9)).toBe("2023-11-14T22:13:20.123Z");
    expect(entryTime(253_402_300_800_000)).toBe("+010000-01-01T00:00:00.000Z");
  });
});

describe("recentRequest", () => {
  it("is the entry of the key's recent-requests list: ISO time, rubles, whole milliseconds, no bodies", () => {
    expect(recentRequest(finished({ bodies }))).toEqual({
      at: "2026-11-21T10:00:00.123Z",
      request_id: "req-1",
      method: "POST",
      path: "/v1/chat/completions",
      model: "m",
      status: 200,
      outcome: "completed",
      prompt_tokens: 12,
      completion_tokens: 7,
      cached_tokens: 0,
      cost: 0.026,
      usage_estimated: false,
      latency_ms: 123,
      upstream_ttfb_ms: 30,
    });
  });

  it("is exactly what the RequestLogEntry schema describes, with and without its bodies", () => {
    const { entry, withBodies } = recentRequestJson(finished({ bodies, queuedAt: 100, dequeuedAt: 200 }), 8);
    for (const json of [entry, withBodies]) {
      expect(RequestLogEntry.strict().parse(JSON.parse(json))).toEqual(JSON.parse(json));
    }
  });

  it("keeps a request's wait for the model server, in whole milliseconds, where it asked for a place", () => {
    expect(recentRequest(finished({ queuedAt: 100, dequeuedAt: 1349.6 })).queue_ms).toBe(1250);
    expect(recentRequest(finished())).not.toHaveProperty("queue_ms");
  });

  it("writes what a request refused unparsed did not have as empty text", () => {
    const entry = recentRequest(
      requestWith({
        requestId: null,
        method: null,
        path: null,
        status: 400,
        outcome: "refused",
        endedAt: ENDED,
      }),
    );
    expect(entry).toMatchObject({
      request_id: "",
      method: "",
      path: "",
      model: null,
      upstream_ttfb_ms: null,
    });
  });
});

describe("recentRequestJson", () => {
  it("is the entry as JSON, and the same with the bodies cut to the limit at its end", () => {
    const { entry, withBodies } = recentRequestJson(finished({ bodies }), 8);
    expect(entry).toBe(JSON.stringify(recentRequest(finished())));
    expect(withBodies.startsWith(entry.slice(0, -1))).toBe(true);
    expect(JSON.parse(withBodies)).toEqual({
      ...JSON.parse(entry),
      request_body: '{"model"',
      response_body: '{"choice',
    });
  });

  it("has no entry with bodies when none were captured or none may be kept", () => {
    expect(recentRequestJson(finished(), 8).withBodies).toBe("");
    expect(recentRequestJson(finished({ bodies }), 0).withBodies).toBe("");
  });

  it("escapes bodies so that the entry stays one JSON document", () => {
    const tricky = { request: () => '"},"cost":0,"x":"\n', response: () => "\u2028</script>" };
    const { withBodies } = recentRequestJson(finished({ bodies: tricky }), 100);
    const parsed = JSON.parse(withBodies);
    expect(parsed.cost).toBe(0.026);
    expect(parsed.request_body).toBe('"},"cost":0,"x":"\n');
    expect(parsed.response_body).toBe("\u2028</script>");
  });
});
