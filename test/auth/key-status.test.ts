// Whether a key may be used at a given time, for the endpoints the gateway answers itself.

import { describe, expect, it } from "vitest";
import { assertUsable } from "../../src/auth/key-status.js";
import { keyRecord } from "../helpers/records.js";

const EXPIRY = Date.parse("2026-12-01T00:00:00Z");

describe("assertUsable", () => {
  it("lets an unrevoked key without an expiry, or before it, through", () => {
    expect(() => assertUsable(keyRecord(), EXPIRY)).not.toThrow();
    expect(() => assertUsable(keyRecord({ expiresAt: EXPIRY }), EXPIRY - 1)).not.toThrow();
  });

  it("refuses a key whose lifetime has elapsed with 401 key_expired, from its expiry instant on", () => {
    for (const now of [EXPIRY, EXPIRY + 86_400_000]) {
      expect(() => assertUsable(keyRecord({ expiresAt: EXPIRY }), now)).toThrow(
        expect.objectContaining({ code: "key_expired", status: 401 }),
      );
    }
  });

  it("refuses a revoked key with key_revoked, even once it has expired as well", () => {
    expect(() => assertUsable(keyRecord({ revokedAt: EXPIRY - 10 }), EXPIRY - 5)).toThrow(
      expect.objectContaining({ code: "key_revoked" }),
    );
    expect(() => assertUsable(keyRecord({ revokedAt: EXPIRY - 10, expiresAt: EXPIRY }), EXPIRY + 1)).toThrow(
      expect.objectContaining({ code: "key_revoked" }),
    );
  });
});
