// Local passwords: Argon2id hashes, verification that takes as long with no user as with a wrong password
// (checked by what it does, not by timing), and the rules of a new password.

import { describe, expect, it } from "vitest";
import {
  checkNewPassword,
  hashPassword,
  MAX_PASSWORD_LENGTH,
  verifyPassword,
} from "../../src/identity/passwords.js";

describe("passwords", () => {
  it("are hashed with Argon2id at OWASP's parameters, salted, and verified", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await hashPassword("correct horse battery")).not.toBe(stored);
    expect(await verifyPassword(stored, "correct horse battery")).toBe(true);
    expect(await verifyPassword(stored, "correct horse batterY")).toBe(false);
  });

  it("never match without a stored hash, nor a stored value that is no hash, nor an overlong password", async () => {
    expect(await verifyPassword(null, "anything")).toBe(false);
    expect(await verifyPassword("not-a-hash", "anything")).toBe(false);
    const long = "x".repeat(MAX_PASSWORD_LENGTH + 1);
    expect(await verifyPassword(await hashPassword(long), long)).toBe(false);
  });

  it("are accepted when long enough, not too long and not common", async () => {
    await expect(checkNewPassword("quiet-orchid-lantern", 12)).resolves.toBe("quiet-orchid-lantern");
    await expect(checkNewPassword("пароль-длинный", 12)).resolves.toBe("пароль-длинный");
  });

  it.each([
    [42, "invalid_request", /must be a string/],
    ["short", "weak_password", /at least 12 characters/],
    ["x".repeat(MAX_PASSWORD_LENGTH + 1), "weak_password", /at most 1024 characters/],
    ["Password1234", "weak_password", /among the most common/],
  ])("refuse %j with %s", async (password, code, message) => {
    await expect(checkNewPassword(password, 12)).rejects.toMatchObject({
      code,
      message: expect.stringMatching(message),
    });
  });
});
