// The request log read back (observability/log-line.ts writes it, one JSON line per request): each finished
// request's line is a charge — its account, key, cost and time — for the books check (books-check.ts). Other
// lines of the log (refusals, the gateway's own messages) are no charge and are passed over; a line that is
// not JSON, or a request's line without the fields a charge needs, is an error naming the line and the field.

import { GatewayError } from "../core/errors.js";
import { type Micros, microsFromJson } from "../core/money.js";

/** One finished request, as its log line tells it. */
export interface LoggedCharge {
  /** The line's number in its input, from 1. */
  line: number;
  accountId: string;
  keyId: string;
  requestId: string;
  cost: Micros;
  /** When the line was written (ms): within a millisecond of the request's end, which dates its charge. */
  at: number;
}

/** The `msg` of a finished request's line (the observer writes it). */
const REQUEST_LINE = "request";

/** A line's charge; null for a line of the log that is not a finished request's. Throws LogLineError. */
export function readLoggedCharge(text: string, line: number): LoggedCharge | null {
  if (text.trim() === "") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new LogLineError(line, "is not JSON (the gateway writes one JSON object per line)");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new LogLineError(line, "is not a JSON object");
  }
  const fields = parsed as Record<string, unknown>;
  if (fields.msg !== REQUEST_LINE) return null;
  const text_ = (name: string): string => {
    const value = fields[name];
    if (typeof value !== "string" || value === "") throw new LogLineError(line, `has no ${name}`);
    return value;
  };
  const cost = fields.cost_rub;
  if (typeof cost !== "number") throw new LogLineError(line, "has no cost_rub");
  let micros: Micros;
  try {
    micros = microsFromJson(cost);
  } catch {
    throw new LogLineError(
      line,
      `has a cost_rub of ${cost}, which is not an amount of rubles to the micro-ruble`,
    );
  }
  if (micros < 0) throw new LogLineError(line, `has a negative cost_rub (${cost})`);
  const at = fields.time;
  if (typeof at !== "number" || !Number.isSafeInteger(at) || at <= 0) {
    throw new LogLineError(line, "has no time (milliseconds since 1970, as pino writes it)");
  }
  return {
    line,
    accountId: text_("account"),
    keyId: text_("key_id"),
    requestId: text_("request_id"),
    cost: micros,
    at,
  };
}

/** A line of the log that cannot be read as one: invalid_request, naming the line and what is wrong. */
export class LogLineError extends GatewayError {
  constructor(
    readonly line: number,
    problem: string,
  ) {
    super("invalid_request", `line ${line} ${problem}`);
  }
}
