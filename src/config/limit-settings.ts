// What the gateway accepts and reads of a request and a response: body size, JSON depth, choices, and the
// metering's bounds on a stream's event, a JSON body and a decompressed body.

import { z } from "zod";

export const limitsSection = z
  .strictObject({
    maxBodyBytes: z
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024),
    maxJsonDepth: z.number().int().min(2).max(1000).default(128),
    maxChoices: z.number().int().positive().max(1024).default(16),
  })
  .prefault({});

export const meteringSection = z
  .strictObject({
    maxEventBytes: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024),
    maxJsonBytes: z
      .number()
      .int()
      .positive()
      .default(4 * 1024 * 1024),
    maxDecompressedBytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024),
  })
  .prefault({});
