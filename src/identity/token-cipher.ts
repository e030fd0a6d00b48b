// The identity providers' tokens kept for re-checking a person between sign-ins (provider-check.ts) are
// encrypted at rest: AES-256-GCM under a key derived (HKDF-SHA-256) from the provider's client secret, which
// is never in Redis. A Redis dump or an AOF holds ciphertext only, and the refresh token it would protect is
// of no use without the client secret anyway. A public client (no secret) has no key: its tokens are not
// kept, and its people cannot be re-checked (docs/sign-in.md).

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class TokenCipher {
  private readonly key: Buffer;

  constructor(clientSecret: string, providerId: string) {
    this.key = Buffer.from(
      hkdfSync("sha256", clientSecret, "tunnel-gateway", `provider-tokens:${providerId}`, 32),
    );
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
  }

  /** The plain text, or null for anything not sealed with this key (another secret, tampered, malformed). */
  open(sealed: string): string | null {
    if (!sealed.startsWith(`${VERSION}.`)) return null;
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), "base64url");
    if (raw.length < IV_BYTES + TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      return null;
    }
  }
}
