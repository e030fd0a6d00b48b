// The providers' tokens kept for re-checks are sealed under a key derived from the client secret: what is
// sealed opens with the same secret and provider, and with nothing else — another secret, another provider,
// a tampered or malformed value — and the sealed text holds nothing of the token.

import { describe, expect, it } from "vitest";
import { TokenCipher } from "../../src/identity/token-cipher.js";

const TOKEN = "refresh-token-value-0123456789abcdef";

describe("TokenCipher", () => {
  it("opens what it sealed, each time sealed differently, with no trace of the token in it", () => {
    const cipher = new TokenCipher("client-secret", "corp");
    const once = cipher.seal(TOKEN);
    const twice = cipher.seal(TOKEN);
    expect(once).toMatch(/^v1\.[\w-]+$/);
    expect(once).not.toBe(twice);
    expect(once).not.toContain(TOKEN);
    expect(Buffer.from(once.slice(3), "base64url").toString("latin1")).not.toContain(TOKEN);
    expect(cipher.open(once)).toBe(TOKEN);
    expect(cipher.open(twice)).toBe(TOKEN);
  });

  it("opens nothing sealed under another secret or provider, tampered with, or not sealed at all", () => {
    const sealed = new TokenCipher("client-secret", "corp").seal(TOKEN);
    expect(new TokenCipher("another-secret", "corp").open(sealed)).toBeNull();
    expect(new TokenCipher("client-secret", "other").open(sealed)).toBeNull();
    const raw = Buffer.from(sealed.slice(3), "base64url");
    raw[raw.length - 1] = (raw[raw.length - 1] as number) ^ 1;
    const cipher = new TokenCipher("client-secret", "corp");
    expect(cipher.open(`v1.${raw.toString("base64url")}`)).toBeNull();
    expect(cipher.open(TOKEN)).toBeNull();
    expect(cipher.open("v1.AAAA")).toBeNull();
  });
});
