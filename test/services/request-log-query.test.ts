// Filtering and paging a key's kept requests: by status class or code, model (none included), days in the
// billing time zone and part of the request id; bad filters refused naming the value.

import { describe, expect, it } from "vitest";
import { checkFilter, matcher, pageOf } from "../../src/services/request-log-query.js";
import type { RequestLogEntry } from "../../src/store/usage/request-log-schema.js";

function entry(id: string, fields: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    at: "2026-11-21T10:00:00.000Z",
    request_id: id,
    method: "POST",
    path: "/v1/chat/completions",
    model: "llama",
    status: 200,
    outcome: "completed",
    prompt_tokens: 1,
    completion_tokens: 1,
    cost: 0.01,
    usage_estimated: false,
    latency_ms: 10,
    upstream_ttfb_ms: 5,
    ...fields,
  };
}

const ENTRIES = [
  entry("req-ok-1"),
  entry("req-429", { status: 429, outcome: "refused" }),
  entry("req-cut", { status: 200, outcome: "client_aborted", model: null }),
  entry("req-502", { status: 502, outcome: "upstream_failed", model: "bge" }),
  entry("req-late", { at: "2026-11-20T22:30:00.000Z" }),
];
const ids = (filter: Parameters<typeof matcher>[0], zone = "UTC") =>
  ENTRIES.filter(matcher(filter, zone)).map((e) => e.request_id);

describe("matcher", () => {
  it("filters by status: ok, error, a class or one code", () => {
    expect(ids({ status: "ok" })).toEqual(["req-ok-1", "req-late"]);
    expect(ids({ status: "error" })).toEqual(["req-429", "req-cut", "req-502"]);
    expect(ids({ status: "4xx" })).toEqual(["req-429"]);
    expect(ids({ status: "5xx" })).toEqual(["req-502"]);
    expect(ids({ status: "429" })).toEqual(["req-429"]);
  });

  it("filters by model, '' meaning none, and by part of the request id whatever its case", () => {
    expect(ids({ model: "bge" })).toEqual(["req-502"]);
    expect(ids({ model: "" })).toEqual(["req-cut"]);
    expect(ids({ requestId: "REQ-4" })).toEqual(["req-429"]);
  });

  it("filters by days of the billing time zone", () => {
    expect(ids({ from: "2026-11-21" })).toEqual(["req-ok-1", "req-429", "req-cut", "req-502"]);
    expect(ids({ to: "2026-11-20" })).toEqual(["req-late"]);
    // 22:30 UTC on the 20th is already the 21st in Moscow.
    expect(ids({ to: "2026-11-20" }, "Europe/Moscow")).toEqual([]);
  });
});

describe("pageOf", () => {
  it("gives one page of the matches with their count and the models to choose from", () => {
    const page = pageOf(ENTRIES, { status: "error" }, "UTC", 1, 1);
    expect(page).toMatchObject({ total: 3, offset: 1, limit: 1, models: [null, "bge", "llama"] });
    expect(page.requests.map((e) => e.request_id)).toEqual(["req-cut"]);
    expect(pageOf(ENTRIES, {}, "UTC", 10, 5).requests).toEqual([]);
  });
});

describe("checkFilter", () => {
  it("refuses an unknown status, a malformed day and a range that runs backwards", () => {
    expect(() => checkFilter({ status: "bad" })).toThrow(
      'status must be one of ok, error, 2xx, 4xx, 5xx or a status code such as 429; got "bad"',
    );
    expect(() => checkFilter({ status: "999" })).toThrow("status must be one of");
    expect(() => checkFilter({ from: "2026-02-30" })).toThrow(
      'from must be a date as YYYY-MM-DD; got "2026-02-30"',
    );
    expect(() => checkFilter({ from: "2026-11-21", to: "2026-11-20" })).toThrow(
      "from (2026-11-21) must not be after to (2026-11-20)",
    );
    expect(() => checkFilter({ status: "404", from: "2026-11-01", to: "2026-11-30" })).not.toThrow();
  });
});
