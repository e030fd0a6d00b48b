// Reading the request log back as charges (services/logged-charges.ts): a finished request's line is a charge
// (account, key, request, cost in µ₽, time), any other line of the log is passed over, and a line that cannot
// be read is an invalid_request naming its number and what it lacks.

import { describe, expect, it } from "vitest";
import { LogLineError, readLoggedCharge } from "../../src/services/logged-charges.js";

const TIME = Date.parse("2026-11-21T10:00:00Z");
const REQUEST = {
  level: 30,
  time: TIME,
  request_id: "req-1",
  account: "acme",
  key_id: "key-1",
  status: 200,
  cost_rub: 0.000123,
  msg: "request",
};
const line = (fields: Record<string, unknown>) => JSON.stringify({ ...REQUEST, ...fields });

/** The error the line is refused with: its message, or "none" if it is read. */
function refusal(text: string, number = 7): string {
  try {
    readLoggedCharge(text, number);
    return "none";
  } catch (error) {
    expect(error).toBeInstanceOf(LogLineError);
    expect(error).toMatchObject({ code: "invalid_request", line: number });
    return (error as Error).message;
  }
}

describe("readLoggedCharge", () => {
  it("reads a finished request's line as a charge in µ₽, dated by the line's time", () => {
    expect(readLoggedCharge(line({}), 3)).toEqual({
      line: 3,
      accountId: "acme",
      keyId: "key-1",
      requestId: "req-1",
      cost: 123,
      at: TIME,
    });
    expect(readLoggedCharge(line({ cost_rub: 0 }), 1)?.cost).toBe(0);
    expect(readLoggedCharge(line({ cost_rub: 12.5 }), 1)?.cost).toBe(12_500_000);
  });

  it("passes over blank lines and lines that are no finished request's", () => {
    expect(readLoggedCharge("", 1)).toBeNull();
    expect(readLoggedCharge("   ", 1)).toBeNull();
    expect(readLoggedCharge(line({ msg: "refused" }), 1)).toBeNull();
    expect(readLoggedCharge(JSON.stringify({ level: 30, time: TIME, msg: "listening" }), 1)).toBeNull();
    expect(readLoggedCharge(JSON.stringify({ level: 30, time: TIME }), 1)).toBeNull();
  });

  it("refuses a line that is not a JSON object, naming its number", () => {
    expect(refusal("request done")).toBe("line 7 is not JSON (the gateway writes one JSON object per line)");
    expect(refusal("[1,2]")).toBe("line 7 is not a JSON object");
    expect(refusal("null")).toBe("line 7 is not a JSON object");
    expect(refusal('"request"')).toBe("line 7 is not a JSON object");
  });

  it("refuses a request's line without the account, key or request id", () => {
    expect(refusal(line({ account: undefined }))).toBe("line 7 has no account");
    expect(refusal(line({ key_id: "" }))).toBe("line 7 has no key_id");
    expect(refusal(line({ request_id: 42 }))).toBe("line 7 has no request_id");
  });

  it("refuses a cost that is missing, not a number, finer than a micro-ruble or negative", () => {
    expect(refusal(line({ cost_rub: undefined }))).toBe("line 7 has no cost_rub");
    expect(refusal(line({ cost_rub: "0.1" }))).toBe("line 7 has no cost_rub");
    expect(refusal(line({ cost_rub: 0.0000001 }))).toBe(
      "line 7 has a cost_rub of 1e-7, which is not an amount of rubles to the micro-ruble",
    );
    expect(refusal(line({ cost_rub: -0.5 }))).toBe("line 7 has a negative cost_rub (-0.5)");
  });

  it("refuses a time that is not whole positive milliseconds", () => {
    const rule = "line 7 has no time (milliseconds since 1970, as pino writes it)";
    for (const time of [undefined, "2026-11-21T10:00:00Z", 0, -1, 1.5, 2 ** 53]) {
      expect(refusal(line({ time })), String(time)).toBe(rule);
    }
  });
});
