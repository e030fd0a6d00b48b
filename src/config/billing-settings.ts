// The billing settings: the calendar's time zone, reservations' and late settlements' lifetimes, the books
// watch, overage, admission leases, the largest prompt believed, and how long daily usage is kept.

import { z } from "zod";
import { isValidTimeZone } from "../core/periods.js";
import { tokens } from "./fields.js";

export const billingSection = z
  .strictObject({
    timezone: z
      .string()
      .refine(isValidTimeZone, { error: "must be an IANA time zone name such as UTC or Europe/Moscow" })
      .default("UTC"),
    reservationTtlSeconds: z.number().int().min(10).default(900),
    lateSettlementSeconds: z.number().int().min(60).default(86_400),
    // How often each replica compares what it charged with what Redis holds (0: never; docs/billing.md).
    driftCheckSeconds: z.number().int().min(0).default(30),
    overage: z.enum(["absorb", "charge"]).default("absorb"),
    // Admission leases (docs/leases.md): requests admitted without a Redis round trip where sound.
    leases: z.boolean().default(true),
    maxPromptTokens: tokens.default(2_000_000),
    // Switching a key to a monthly budget sums up to 31 days of its daily usage, so they must be kept as long.
    usageRetentionDays: z
      .number()
      .int()
      .min(31, "must be at least 31: a key switched to a monthly budget counts up to 31 days of usage")
      .default(400),
  })
  .prefault({});
