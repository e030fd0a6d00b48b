// The CSV exports: cells quoted by RFC 4180 and defused against spreadsheet formulas, daily usage one line per
// day, key and model with exact rubles, requests with their key.

import { describe, expect, it } from "vitest";
import { cell, OTHER_MODELS, requestsCsv, usageCsv } from "../../src/services/usage-csv.js";
import type { KeyRecord } from "../../src/store/records.js";
import type { RequestLogEntry } from "../../src/store/usage/request-log-schema.js";

const key = (id: string, name: string) => ({ id, name }) as KeyRecord;

describe("cell", () => {
  it("quotes a comma, a quote or a line break, and leaves plain text and numbers as they are", () => {
    expect(cell("plain")).toBe("plain");
    expect(cell('say "hi", then go')).toBe('"say ""hi"", then go"');
    expect(cell("two\nlines")).toBe('"two\nlines"');
    expect(cell(12)).toBe("12");
    expect(cell(false)).toBe("false");
    expect(cell(null)).toBe("");
    expect(cell("Продакшн")).toBe("Продакшн");
  });

  it("defuses text a spreadsheet would run as a formula", () => {
    expect(cell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(cell("+1")).toBe("'+1");
    expect(cell("-cmd")).toBe("'-cmd");
    expect(cell("@SUM(A1)")).toBe("'@SUM(A1)");
  });
});

describe("usageCsv", () => {
  it("writes a line per day, key and model with requests, costs exact to the micro-ruble", () => {
    const text = usageCsv({
      days: ["2026-11-20", "2026-11-21"],
      keys: [key("key_a", "prod, main"), key("key_b", "dev")],
      counters: [
        [{}, { lat_le_50: 1, cost: 1, "m:bge:requests": 1, "m:bge:cost": 1 }],
        [
          {
            lat_le_100: 3,
            prompt_tokens: 5,
            cached_tokens: 4,
            cost: 2_500_001,
            "m:llama:requests": 2,
            "m:llama:cost": 2_500_000,
            "m:llama:prompt_tokens": 5,
            "m:llama:cached_tokens": 4,
            "mx:requests": 1,
            "mx:cost": 1,
          },
          {},
        ],
      ],
    });
    expect(text.split("\r\n")).toEqual([
      "date,key_id,key_name,model,requests,prompt_tokens,cached_tokens,completion_tokens,cost_rub",
      "2026-11-20,key_b,dev,bge,1,0,0,0,0.000001",
      '2026-11-21,key_a,"prod, main",llama,2,5,4,0,2.5',
      `2026-11-21,key_a,"prod, main",${OTHER_MODELS},1,0,0,0,0.000001`,
      "",
    ]);
  });
});

describe("requestsCsv", () => {
  it("writes a line per request with its key, and rubles back to exact decimals", () => {
    const entry: RequestLogEntry = {
      at: "2026-11-21T09:00:00.000Z",
      request_id: "req-1",
      method: "POST",
      path: "/v1/chat/completions",
      model: null,
      status: 200,
      outcome: "completed",
      prompt_tokens: 10,
      completion_tokens: 2,
      cost: 0.000123,
      usage_estimated: false,
      latency_ms: 41,
      upstream_ttfb_ms: null,
    };
    // An entry written before cached tokens were counted has none: 0.
    const queued = { ...entry, request_id: "req-2", queue_ms: 250, cached_tokens: 6 };
    expect(
      requestsCsv([
        { key: key("key_a", "=evil"), entry },
        { key: key("key_a", "=evil"), entry: queued },
      ]).split("\r\n"),
    ).toEqual([
      "at,request_id,key_id,key_name,method,path,model,status,outcome,prompt_tokens,cached_tokens,completion_tokens,cost_rub,usage_estimated,latency_ms,upstream_ttfb_ms,queue_ms",
      "2026-11-21T09:00:00.000Z,req-1,key_a,'=evil,POST,/v1/chat/completions,,200,completed,10,0,2,0.000123,false,41,,",
      "2026-11-21T09:00:00.000Z,req-2,key_a,'=evil,POST,/v1/chat/completions,,200,completed,10,6,2,0.000123,false,41,,250",
      "",
    ]);
  });
});
