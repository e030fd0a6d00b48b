// Webhook signatures and secrets: the signature a receiver recomputes from the raw body and the timestamp, and
// the secrets the gateway generates.

import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, SECRET_PREFIX, signature } from "../../src/alerts/signing.js";

describe("webhook signing", () => {
  it("signs `<timestamp>.<body>` with HMAC-SHA256, as a receiver recomputes it", () => {
    const body = '{"type":"balance.low"}';
    const expected = createHmac("sha256", "s3cret-s3cret-s3cret").update(`1795292755.${body}`).digest("hex");
    expect(signature("s3cret-s3cret-s3cret", body, 1795292755)).toBe(`t=1795292755,v1=${expected}`);
  });

  it("changes with the body, the timestamp and the secret", () => {
    const base = signature("secret-one-secret", "{}", 1);
    expect(signature("secret-one-secret", "{} ", 1)).not.toBe(base);
    expect(signature("secret-one-secret", "{}", 2)).not.toBe(base);
    expect(signature("secret-two-secret", "{}", 1)).not.toBe(base);
  });

  it("generates whsec_ secrets of 32 random bytes, never the same twice", () => {
    const secrets = Array.from({ length: 50 }, generateWebhookSecret);
    for (const secret of secrets) expect(secret).toMatch(new RegExp(`^${SECRET_PREFIX}[0-9a-f]{64}$`));
    expect(new Set(secrets).size).toBe(50);
  });
});
