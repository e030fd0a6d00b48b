// The kinds of value the settings are made of, shared by the sections of the configuration (schema.ts
// assembles them): ruble amounts, ports, secrets, files, addresses, URLs, token counts, variable names.

import { z } from "zod";
import { parseCidr } from "../core/cidr.js";
import { isGatewayError } from "../core/errors.js";
import { parseRubles } from "../core/money.js";

/** A ruble amount in the file (number or decimal string), held as integer micro-rubles after parsing. */
export const rubles = z.union([z.number(), z.string()]).transform((value, ctx) => {
  try {
    return parseRubles(value, "amount");
  } catch (error) {
    ctx.issues.push({
      code: "custom",
      input: value,
      message: isGatewayError(error) ? error.message.replace(/^amount /, "") : String(error),
    });
    return z.NEVER;
  }
});

export const port = z.number().int().min(0).max(65535);
export const secret = z.string().min(16, "must be at least 16 characters");
export const file = z.string().min(1);
/** host:port of a Redis node or sentinel. */
export const hostPort = z
  .string()
  .regex(/^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/, "must be host:port");

/** An IPv4 or IPv6 CIDR such as 10.0.0.0/8 or fd00::/8 (a bare address means a single host). */
export const cidr = z
  .string()
  .refine((value) => parseCidr(value) !== null, { error: "must be a CIDR such as 10.0.0.0/8" });
export const host = z.string().min(1);
export const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });
/** A number of tokens: a positive integer that every model server reads as a 32-bit integer. */
export const tokens = z.number().int().positive().max(2_147_483_647);

/** The name of an environment variable (never a secret itself: files are not secret). */
export const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the name of an environment variable");
