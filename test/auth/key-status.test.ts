// Whether a key may be used at a given time with a given value, for the endpoints the gateway answers itself.

import { describe, expect, it } from "vitest";
import { assertUsable } from "../../src/auth/key-status.js";
import { HASH, keyRecord } from "../helpers/records.js";

const EXPIRY = Date.parse("2026-12-01T00:00:00Z");

describe("assertUsable", () => {
  it("lets an unrevoked key without an expiry, or before it, through", () => {
    expect(() => assertUsable(keyRecord(), EXPIRY, HASH)).not.toThrow();
    expect(() => assertUsable(keyRecord({ expiresAt: EXPIRY }), EXPIRY - 1, HASH)).not.toThrow();
  });

  it("refuses a key whose lifetime has elapsed with 401 key_expired, from its expiry instant on", () => {
    for (const now of [EXPIRY, EXPIRY + 86_400_000]) {
      expect(() => assertUsable(keyRecord({ expiresAt: EXPIRY }), now, HASH)).toThrow(
        expect.objectContaining({ code: "key_expired", status: 401 }),
      );
    }
  });

  it("refuses a revoked key with key_revoked, even once it has expired as well", () => {
    expect(() => assertUsable(keyRecord({ revokedAt: EXPIRY - 10 }), EXPIRY - 5, HASH)).toThrow(
      expect.objectContaining({ code: "key_revoked" }),
    );
    expect(() =>
      assertUsable(keyRecord({ revokedAt: EXPIRY - 10, expiresAt: EXPIRY }), EXPIRY + 1, HASH),
    ).toThrow(expect.objectContaining({ code: "key_revoked" }));
  });

  it("refuses a value a rotation replaced once its grace period is over, and accepts it until then", () => {
    const old = "b".repeat(64);
    const rotated = keyRecord({ previousHash: old, previousUntil: EXPIRY });
    expect(() => assertUsable(rotated, EXPIRY - 1, old)).not.toThrow();
    expect(() => assertUsable(rotated, EXPIRY - 1, HASH)).not.toThrow();
    expect(() => assertUsable(rotated, EXPIRY, old)).toThrow(
      expect.objectContaining({ code: "key_rotated", status: 401 }),
    );
    expect(() => assertUsable(rotated, EXPIRY, HASH)).not.toThrow();
    // A value two rotations old is neither the current one nor the previous one.
    expect(() => assertUsable(rotated, EXPIRY - 1, "c".repeat(64))).toThrow(
      expect.objectContaining({ code: "key_rotated" }),
    );
  });

  it("accepts any value of a key whose value was never recorded, and any old one in its first grace", () => {
    expect(() => assertUsable(keyRecord({ hash: null }), EXPIRY, "c".repeat(64))).not.toThrow();
    const first = keyRecord({ previousHash: "*", previousUntil: EXPIRY });
    expect(() => assertUsable(first, EXPIRY - 1, "c".repeat(64))).not.toThrow();
    expect(() => assertUsable(first, EXPIRY, "c".repeat(64))).toThrow(
      expect.objectContaining({ code: "key_rotated" }),
    );
  });

  it("lets a disabled key through: the endpoints the gateway answers itself answer it, to say why", () => {
    expect(() => assertUsable(keyRecord({ disabledAt: EXPIRY - 1 }), EXPIRY, HASH)).not.toThrow();
  });
});
