// How accounts and keys share a full model server (docs/fair-sharing.md): the settings an account and a key
// may have, their bounds and input rules (the CLI, the admin API and the dashboard check the same), and how
// a request's own settings follow from its key's and its account's.

import { GatewayError } from "./errors.js";

/** The largest weight: an account with it gets 1000 turns to a weight-1 account's one. */
export const MAX_WEIGHT = 1000;
/** Priorities run from -MAX_PRIORITY (first) to MAX_PRIORITY (last); 0 is the model servers' default. */
export const MAX_PRIORITY = 1000;
/** The longest wait an account or a key may set (one hour, as queue.maxWaitMs). */
export const MAX_WAIT_MS = 3_600_000;

/** An account's and its key's settings as stored; null where they have none. */
export interface SharingFields {
  /** The account's weight; null for the default, 1. */
  weight: number | null;
  accountPriority: number | null;
  accountMaxWaitMs: number | null;
  keyPriority: number | null;
  keyMaxWaitMs: number | null;
}

/** What a request of the key gets: its account's weight, its priority at the model server, its longest wait. */
export interface RequestSharing {
  weight: number;
  /** Lower first; null when neither the key nor its account has one (the server's default, 0, applies). */
  priority: number | null;
  /** The shortest of the configured wait (queue.maxWaitMs), the account's and the key's (ms). */
  maxWaitMs: number;
}

/**
 * A request's settings from its key's and its account's. A key's priority is never more urgent than its
 * account's (0 when the account has none): the larger number of the two applies, so that a key's holder can
 * lower the priority of a batch key but cannot lift a key above its account.
 */
export function requestSharing(fields: SharingFields, configuredMaxWaitMs: number): RequestSharing {
  const { keyPriority, accountPriority } = fields;
  return {
    // A weight below 1 (never written by the scripts' callers) would starve the account: read as 1.
    weight: fields.weight !== null && fields.weight >= 1 ? fields.weight : 1,
    priority: keyPriority === null ? accountPriority : Math.max(keyPriority, accountPriority ?? 0),
    maxWaitMs: Math.min(
      configuredMaxWaitMs,
      fields.accountMaxWaitMs ?? configuredMaxWaitMs,
      fields.keyMaxWaitMs ?? configuredMaxWaitMs,
    ),
  };
}

export function validateWeight(value: unknown): number {
  return whole(value, "weight", 1, MAX_WEIGHT, "its share of a full model server against weight-1 accounts");
}

export function validatePriority(value: unknown): number {
  return whole(
    value,
    "priority",
    -MAX_PRIORITY,
    MAX_PRIORITY,
    "lower values are served first; 0 is the default",
  );
}

export function validateMaxWaitMs(value: unknown): number {
  return whole(value, "max_wait_ms", 1, MAX_WAIT_MS, "milliseconds a request may wait for its turn");
}

/** A whole number from `min` to `max`, given as a number or as decimal digits (the CLI's text). */
function whole(value: unknown, name: string, min: number, max: number, meaning: string): number {
  const number = typeof value === "string" && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < min || number > max) {
    const got = value === undefined ? "nothing" : (JSON.stringify(value) ?? String(value)).slice(0, 80);
    throw new GatewayError(
      "invalid_request",
      `${name} must be a whole number from ${min} to ${max} (${meaning}); got ${got}`,
    );
  }
  return number;
}
