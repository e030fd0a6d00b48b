// Prices and estimates: a model's price in rubles per million tokens (with its worst-case caps), the default
// price every field of which has its own default, and the bytes-per-token ratios of the estimates.

import { z } from "zod";
import { rubles, tokens } from "./fields.js";

const price = z.strictObject({
  /** Rubles per 1 million prompt tokens. */
  input: rubles,
  /** Rubles per 1 million completion tokens (reasoning tokens are completion tokens). */
  output: rubles,
  /** Rubles per 1 million prompt tokens the model server served from its prefix cache; the input price if unset. */
  cachedInput: rubles.optional(),
  /** Rubles per 1 million prompt tokens a server reports writing to its cache (Anthropic-style); the input price if unset. */
  cacheWrite: rubles.optional(),
  /** Rubles charged once for every request the model server took; none if unset. */
  perRequest: rubles.optional(),
  /** Output tokens assumed for the worst case when a request sets no max_tokens. */
  maxOutputTokens: tokens.optional(),
  /** The model's context length: output caps above it are refused, prompt reports above it not believed. */
  contextTokens: tokens.optional(),
  /** Prompt tokens one image, audio or video part of a prompt may take, for the worst case. */
  maxImageTokens: tokens.optional(),
  maxAudioTokens: tokens.optional(),
  maxVideoTokens: tokens.optional(),
});
/** Each field has its default, so that a file may change one of them (say the input price) alone. */
const defaultPrice = price.extend({
  input: rubles.prefault(100),
  output: rubles.prefault(300),
  maxOutputTokens: tokens.default(4096),
  maxImageTokens: tokens.default(4096),
  maxAudioTokens: tokens.default(4096),
  maxVideoTokens: tokens.default(16_384),
});

export const pricingSection = z
  .strictObject({
    default: defaultPrice.prefault({}),
    models: z.record(z.string().min(1), price).default({}),
  })
  .prefault({});

export const estimateSection = z
  .strictObject({
    reserveBytesPerToken: z.number().positive().default(1),
    usageBytesPerToken: z.number().positive().default(4),
  })
  .prefault({});

export type Price = z.output<typeof price>;
