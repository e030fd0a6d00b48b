// The configuration schema: every setting, its type, its default. `config/default.yaml` documents the same
// settings with a comment each, and a test keeps the two equal. Unknown keys are refused so that a misspelled
// setting fails at start-up instead of being silently ignored.

import { z } from "zod";
import { parseRubles } from "../billing/money.js";
import { isValidTimeZone } from "../billing/periods.js";
import { isGatewayError } from "../errors.js";

/** A ruble amount in the file (number or decimal string), held as integer micro-rubles after parsing. */
const rubles = z.union([z.number(), z.string()]).transform((value, ctx) => {
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

const port = z.number().int().min(0).max(65535);
const host = z.string().min(1);
const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });

const price = z.strictObject({
  /** Rubles per 1 million prompt tokens. */
  input: rubles,
  /** Rubles per 1 million completion tokens. */
  output: rubles,
  /** Output tokens assumed for the worst case when a request sets no max_tokens. */
  maxOutputTokens: z.number().int().positive().optional(),
});
const defaultPrice = price.extend({ maxOutputTokens: z.number().int().positive().default(4096) });

export const configSchema = z.strictObject({
  listen: z
    .strictObject({
      host: host.default("127.0.0.1"),
      port: port.default(8080),
    })
    .prefault({}),
  upstream: z
    .strictObject({
      url: httpUrl.default("http://127.0.0.1:8000"),
      apiKey: z.string().min(1).optional(),
      timeoutMs: z.number().int().positive().default(300_000),
      injectStreamUsage: z.boolean().default(true),
    })
    .prefault({}),
  redis: z
    .strictObject({
      url: z
        .string()
        .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
        .default("redis://127.0.0.1:6379"),
      prefix: z
        .string()
        .regex(/^[A-Za-z0-9:_.-]*$/, "may contain only letters, digits and : _ . -")
        .default("tg:"),
    })
    .prefault({}),
  metrics: z
    .strictObject({
      host: host.default("127.0.0.1"),
      port: port.default(9464),
    })
    .prefault({}),
  billing: z
    .strictObject({
      timezone: z
        .string()
        .refine(isValidTimeZone, { error: "must be an IANA time zone name such as UTC or Europe/Moscow" })
        .default("UTC"),
      reservationTtlSeconds: z.number().int().min(10).default(900),
      lateSettlementSeconds: z.number().int().min(60).default(86_400),
      usageRetentionDays: z.number().int().min(1).default(400),
    })
    .prefault({}),
  pricing: z
    .strictObject({
      default: defaultPrice.prefault({ input: 100, output: 300 }),
      models: z.record(z.string().min(1), price).default({}),
    })
    .prefault({}),
  estimate: z
    .strictObject({
      reserveBytesPerToken: z.number().positive().default(1),
      usageBytesPerToken: z.number().positive().default(4),
    })
    .prefault({}),
  limits: z
    .strictObject({
      maxBodyBytes: z
        .number()
        .int()
        .positive()
        .default(10 * 1024 * 1024),
    })
    .prefault({}),
  logging: z
    .strictObject({
      level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
      bodies: z.boolean().default(true),
      maxBodyBytes: z.number().int().min(0).default(4096),
    })
    .prefault({}),
});

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type Price = z.output<typeof price>;
