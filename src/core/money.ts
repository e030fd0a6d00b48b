// Money is kept everywhere — Redis, Lua, TypeScript — as an integer number of micro-rubles (1 µ₽ = 1e-6 ₽).
// This module is the only place that converts between that integer and what people and JSON see.
//
// Amounts are capped at MAX_MICROS (just under one billion rubles): every such integer is exact in a double,
// in Lua (whose numbers are doubles) and in Redis' int64 arithmetic, and has at most 15 significant digits,
// so the JSON number written for it reads back as exactly the same decimal.

import { GatewayError } from "./errors.js";

/** An integer amount of micro-rubles. */
export type Micros = number;

export const MICROS_PER_RUBLE = 1_000_000;
export const MICROS_DIGITS = 6;
/** 999 999 999.999999 ₽: the largest balance, budget or top-up the gateway accepts. */
export const MAX_MICROS: Micros = 999_999_999_999_999;

const RUBLES_PATTERN = /^(\d{1,9})(?:\.(\d{1,6}))?$/;

/**
 * Parses a ruble amount written as a plain decimal ("1000", "12.5", "0.000001") into micro-rubles.
 * Numbers (from YAML or JSON) are accepted through their shortest decimal form, so 0.1 stays 0.1.
 * Refuses signs, exponents, more than six decimals and anything above MAX_MICROS, naming `what`.
 */
export function parseRubles(input: string | number, what: string): Micros {
  return parse(input, what, "a non-negative");
}

/** Like parseRubles, but also refuses zero. */
export function parsePositiveRubles(input: string | number, what: string): Micros {
  const micros = parse(input, what, "a positive");
  if (micros <= 0) throw refused(input, what, "a positive");
  return micros;
}

/**
 * Micro-rubles of a plain decimal text (surrounding spaces allowed), or undefined if it is not one: for
 * callers that report the problem their own way, such as the dashboard's forms.
 */
export function readRubles(text: string): Micros | undefined {
  const match = RUBLES_PATTERN.exec(text.trim());
  if (!match) return undefined;
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? "").padEnd(MICROS_DIGITS, "0"));
  return whole * MICROS_PER_RUBLE + fraction;
}

function parse(input: string | number, what: string, kind: string): Micros {
  const text = typeof input === "number" ? numberToPlainDecimal(input) : input;
  const micros = text === undefined ? undefined : readRubles(text);
  if (micros === undefined) throw refused(input, what, kind);
  return micros;
}

function refused(input: string | number, what: string, kind: string): GatewayError {
  return new GatewayError(
    "invalid_request",
    `${what} must be ${kind} amount in rubles with at most ${MICROS_DIGITS} decimals and at most 999999999 whole rubles, such as 1000 or 12.5; got ${JSON.stringify(String(input))}`,
  );
}

function numberToPlainDecimal(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  const text = String(value);
  // String() switches to exponent form below 1e-6 and above 1e21; neither is a valid ruble amount here.
  return text.includes("e") ? undefined : text;
}

/** The exact decimal text of an amount: 12500000 → "12.5", -1 → "-0.000001". */
export function formatRubles(micros: Micros): string {
  assertMicros(micros);
  const sign = micros < 0 ? "-" : "";
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_RUBLE);
  const fraction = abs % MICROS_PER_RUBLE;
  if (fraction === 0) return `${sign}${whole}`;
  const digits = String(fraction).padStart(MICROS_DIGITS, "0").replace(/0+$/, "");
  return `${sign}${whole}.${digits}`;
}

/** The amount as a JSON number of rubles, exact to the micro-ruble. */
export function rublesForJson(micros: Micros): number {
  return Number(formatRubles(micros));
}

/**
 * The µ₽ of an amount rublesForJson wrote (as in the request log's `cost` or the admin API's figures),
 * read from its decimal text, not by float arithmetic; throws for a number that is no such amount.
 */
export function microsFromJson(rubles: number): Micros {
  const micros = numberToPlainDecimal(Math.abs(rubles));
  const value = micros === undefined ? undefined : readRubles(micros);
  if (value === undefined) throw new TypeError(`${rubles} is not an amount of rubles to the micro-ruble`);
  return rubles < 0 ? -value : value;
}

/**
 * The amount as a float of rubles, for metrics, which Prometheus stores as floats anyway. Unlike
 * rublesForJson it never throws: a gauge must not take the process down over an amount it cannot print
 * exactly.
 */
export function rublesAsFloat(micros: Micros): number {
  return micros / MICROS_PER_RUBLE;
}

export function assertMicros(micros: Micros): void {
  if (!Number.isSafeInteger(micros)) {
    throw new TypeError(`money must be an integer number of micro-rubles, got ${micros}`);
  }
}
