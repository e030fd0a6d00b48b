// How the CLI prints: tables padded to their widest cell, keys one per line, usage per day with its total
// exact to the micro-ruble, CSV without one, readable descriptions, and a failure as one line on stderr —
// the error table's JSON with --json, the message saying what went wrong otherwise.

import { afterEach, describe, expect, it, vi } from "vitest";
import {
  describeAccount,
  describeKey,
  formatTable,
  keyTable,
  printFailure,
  printJson,
  printLines,
  usageCsv,
  usageTable,
} from "../../src/cli/output.js";
import { ConfigError } from "../../src/config/config-error.js";
import { GatewayError } from "../../src/core/errors.js";
import { PeriodCalendar } from "../../src/core/periods.js";
import type { UsageDay } from "../../src/services/usage.js";
import { accountView, keyListView } from "../../src/services/views.js";
import { accountRecord, keyRecord } from "../helpers/records.js";

const utc = new PeriodCalendar("UTC");
const NOW = Date.parse("2026-11-21T10:00:00Z");
const CLOCK = { now: () => NOW, calendar: utc };

function captured(stream: "stdout" | "stderr", print: () => void): string {
  let text = "";
  const spy = vi.spyOn(process[stream], "write").mockImplementation((chunk) => {
    text += String(chunk);
    return true;
  });
  try {
    print();
  } finally {
    spy.mockRestore();
  }
  return text;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("formatTable", () => {
  it("pads each column to its widest cell, aligns the chosen ones right, and trims the line ends", () => {
    expect(
      formatTable(
        ["NAME", "N", "NOTE"],
        [
          ["a", "1", ""],
          ["longer", "100", "x"],
        ],
        new Set([1]),
      ),
    ).toEqual(["NAME      N  NOTE", "a         1", "longer  100  x"]);
  });

  it("treats a missing cell as empty", () => {
    expect(formatTable(["A", "B"], [["x"]])).toEqual(["A  B", "x"]);
  });
});

describe("keyTable", () => {
  it("shows one line per key: id, hint, name, state, limits, budget spent of limit, expiry to the minute", () => {
    const keys = [
      keyRecord({
        id: "key_aaaaaaaaaaaaaaaaaaaa",
        hint: "a1b2",
        name: "prod",
        budget: 5_000_000,
        spent: 1_250_000,
        period: "month",
        limits: { rpm: 60, tpm: 100_000, maxParallel: 4 },
      }),
      keyRecord({
        id: "key_bbbbbbbbbbbbbbbbbbbb",
        hint: "c3d4",
        name: "prod",
        expiresAt: Date.parse("2026-11-23T20:39:59Z"),
      }),
      keyRecord({ id: "key_cccccccccccccccccccc", hint: "e5f6", name: "old", revokedAt: NOW - 1 }),
    ];
    expect(keyTable(keys, NOW, utc)).toEqual([
      "ID                        HINT   NAME  STATE    LIMITS                   BUDGET SPENT/LIMIT  EXPIRES",
      "key_aaaaaaaaaaaaaaaaaaaa  …a1b2  prod  active   60 rpm 100000 tpm 4 par  1.25/5 RUB a month  never",
      "key_bbbbbbbbbbbbbbbbbbbb  …c3d4  prod  active   none                     none                2026-11-23 20:39 UTC",
      "key_cccccccccccccccccccc  …e5f6  old   revoked  none                     none                never",
    ]);
  });

  it("cuts a long name with an ellipsis, and shows this period's spending once a period has turned over", () => {
    const long = "n".repeat(40);
    const [, line] = keyTable(
      [
        keyRecord({
          name: long,
          budget: 1_000_000,
          spent: 900_000,
          period: "day",
          periodStart: NOW - 2 * 86_400_000,
        }),
      ],
      NOW,
      utc,
    );
    expect(line).toContain(`${"n".repeat(31)}…`);
    expect(line).not.toContain("n".repeat(32));
    expect(line).toContain("0/1 RUB a day");
  });
});

describe("usage", () => {
  const days: UsageDay[] = [
    {
      date: "2026-11-20",
      counters: {
        lat_le_100: 2,
        prompt_tokens: 10,
        cached_tokens: 8,
        completion_tokens: 5,
        cost: 333_333,
        errors: 1,
      },
    },
    { date: "2026-11-21", counters: { lat_le_inf: 1, cost: 666_667 } },
  ];

  it("is a table of days with numbers aligned right and a total exact to the micro-ruble", () => {
    expect(usageTable(days)).toEqual([
      "DATE        REQUESTS  PROMPT TOKENS  CACHED TOKENS  COMPLETION TOKENS  COST RUB  ERRORS",
      "2026-11-20         2             10              8                  5  0.333333       1",
      "2026-11-21         1              0              0                  0  0.666667       0",
      "total              3             10              8                  5         1       1",
    ]);
  });

  it("is CSV of a header and the days, without a total", () => {
    expect(usageCsv(days)).toEqual([
      "date,requests,prompt_tokens,cached_tokens,completion_tokens,cost_rub,errors",
      "2026-11-20,2,10,8,5,0.333333,1",
      "2026-11-21,1,0,0,0,0.666667,0",
    ]);
    expect(usageCsv([])).toHaveLength(1);
  });
});

describe("descriptions", () => {
  it("describe an account line by line", () => {
    expect(describeAccount(accountView(accountRecord({ balance: 4_987_650_000 }), CLOCK))).toEqual([
      "account  acme",
      "name     Acme Corp",
      "balance  4987.65 RUB",
      "created  2026-11-01T08:00:00.000Z",
      "sharing  weight 1",
    ]);
    expect(
      describeAccount(accountView(accountRecord({ weight: 3, priority: -1, maxWaitMs: 5000 }), CLOCK)).at(-1),
    ).toBe("sharing  weight 3, priority -1, max wait 5000 ms");
  });

  it("describe a key with its state, budget, limits, models and privacy, its hint and revocation when known", () => {
    const key = keyRecord({
      budget: 5_000_000,
      spent: 1_000_000,
      allowedModels: ["a", "b"],
      logBodies: false,
      revokedAt: NOW - 60_000,
      limits: { rpm: 60, tpm: null, maxParallel: 4 },
    });
    const view = keyListView(key, NOW, utc);
    expect(describeKey(view, key.hint)).toEqual([
      `key      ${key.id} (…a1b2)`,
      "name     prod",
      "state    revoked",
      "account  acme",
      "created  2026-11-01T08:00:00.000Z",
      "expires  never",
      "budget   1 of 5 RUB spent this month, 4 left, resets 2026-12-01T00:00:00.000Z",
      "limits   rpm 60, max_parallel 4",
      "models   a, b",
      "bodies   never logged",
      "revoked  2026-11-21T09:59:00.000Z",
    ]);
    const plain = describeKey(keyListView(keyRecord(), NOW, utc));
    expect(plain).toContain("state    active");
    expect(plain).toContain("budget   none");
    expect(plain).toContain("limits   none");
    expect(plain).toContain("models   all");
    expect(plain).toContain("bodies   may be logged");
    expect(plain[0]).toBe("key      key_5m2x8q0c7w1r9t4z6b3n");
    expect(plain.some((line) => line.startsWith("revoked"))).toBe(false);
    const rotating = describeKey(keyListView(keyRecord({ previousUntil: NOW + 1000 }), NOW, utc));
    expect(rotating).toContain("state    rotating: the previous value works until 2026-11-21T10:00:01.000Z");
    const disabled = describeKey(keyListView(keyRecord({ disabledAt: NOW - 1000 }), NOW, utc));
    expect(disabled).toContain(
      "state    disabled since 2026-11-21T09:59:59.000Z (keys enable key_5m2x8q0c7w1r9t4z6b3n restores it)",
    );
  });
});

describe("printing", () => {
  it("prints JSON indented, and lines, each ending in a newline", () => {
    expect(captured("stdout", () => printJson({ a: [1] }))).toBe('{\n  "a": [\n    1\n  ]\n}\n');
    expect(captured("stdout", () => printLines("one", "two"))).toBe("one\ntwo\n");
  });

  it("prints a failure as one line, its message on one line", () => {
    const failure = new GatewayError("invalid_request", "budget must be\n  a positive amount");
    expect(captured("stderr", () => printFailure(failure, false))).toBe(
      "error: budget must be a positive amount\n",
    );
    expect(captured("stderr", () => printFailure(failure, true))).toBe(
      '{"error":{"message":"budget must be\\n  a positive amount","type":"invalid_request_error","code":"invalid_request"}}\n',
    );
  });

  it("prints a bad configuration as invalid_request, Redis away as service_unavailable, and a bug saying what it was", () => {
    const config = JSON.parse(
      captured("stderr", () =>
        printFailure(
          new ConfigError("invalid configuration: TUNNEL_PORT: listen.port: must be a number"),
          true,
        ),
      ),
    );
    expect(config.error).toMatchObject({
      code: "invalid_request",
      message: "invalid configuration: TUNNEL_PORT: listen.port: must be a number",
    });
    const away = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" });
    expect(JSON.parse(captured("stderr", () => printFailure(away, true))).error.code).toBe(
      "service_unavailable",
    );
    const bug = JSON.parse(
      captured("stderr", () => printFailure(new TypeError("x is not a function"), true)),
    );
    expect(bug.error).toMatchObject({ code: "internal_error", message: "x is not a function" });
    expect(captured("stderr", () => printFailure("a thrown string", false))).toBe("error: a thrown string\n");
  });
});
