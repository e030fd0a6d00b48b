// A request's fair-sharing settings from its key's and its account's, and the input rules every way of
// changing them shares.

import { describe, expect, it } from "vitest";
import {
  requestSharing,
  type SharingFields,
  validateMaxWaitMs,
  validatePriority,
  validateWeight,
} from "../../src/core/sharing.js";

const NONE: SharingFields = {
  weight: null,
  accountPriority: null,
  accountMaxWaitMs: null,
  keyPriority: null,
  keyMaxWaitMs: null,
};

describe("requestSharing", () => {
  it("gives weight 1, no priority and the configured wait to a key and account that set none", () => {
    expect(requestSharing(NONE, 30_000)).toEqual({ weight: 1, priority: null, maxWaitMs: 30_000 });
  });

  it("takes the shortest wait of the configuration, the account and the key", () => {
    expect(requestSharing({ ...NONE, accountMaxWaitMs: 5000, keyMaxWaitMs: 8000 }, 30_000).maxWaitMs).toBe(
      5000,
    );
    expect(requestSharing({ ...NONE, keyMaxWaitMs: 800 }, 30_000).maxWaitMs).toBe(800);
    expect(requestSharing({ ...NONE, accountMaxWaitMs: 60_000 }, 30_000).maxWaitMs).toBe(30_000);
  });

  it("never lets a key's priority be more urgent (lower) than its account's, 0 when the account has none", () => {
    expect(requestSharing({ ...NONE, accountPriority: 3 }, 1).priority).toBe(3);
    expect(requestSharing({ ...NONE, accountPriority: 3, keyPriority: 7 }, 1).priority).toBe(7);
    expect(requestSharing({ ...NONE, accountPriority: 3, keyPriority: -5 }, 1).priority).toBe(3);
    expect(requestSharing({ ...NONE, keyPriority: -5 }, 1).priority).toBe(0);
    expect(requestSharing({ ...NONE, accountPriority: -4, keyPriority: -2 }, 1).priority).toBe(-2);
  });
});

describe("the settings' input rules", () => {
  it("take whole numbers in range, as numbers or as the CLI's text, and refuse the rest naming the setting", () => {
    expect(validateWeight("3")).toBe(3);
    expect(validatePriority(" -7 ")).toBe(-7);
    expect(validateMaxWaitMs(1500)).toBe(1500);
    expect(() => validateWeight(0)).toThrow(/^weight must be a whole number from 1 to 1000 .*got 0$/);
    expect(() => validateWeight(1.5)).toThrow(/weight must be a whole number/);
    expect(() => validatePriority(1001)).toThrow(/priority must be a whole number from -1000 to 1000/);
    expect(() => validateMaxWaitMs("soon")).toThrow(
      /max_wait_ms must be a whole number from 1 to 3600000 .*got "soon"/,
    );
    expect(() => validateMaxWaitMs(undefined)).toThrow(/got nothing/);
  });
});
