// What the people's commands and routes take: e-mails (trimmed, case-folded), user ids and roles, each refused
// with 400 invalid_request saying what was expected and what came.

import { describe, expect, it } from "vitest";
import {
  validateAccountRole,
  validateEmail,
  validateOperatorRole,
  validateUserId,
} from "../../src/identity/user-input.js";

describe("people's input", () => {
  it("takes an e-mail trimmed and case-folded", () => {
    expect(validateEmail("  Ann.Lee@Example.COM ")).toBe("ann.lee@example.com");
  });

  it.each(["ann", "ann@", "ann@example", "a b@example.com", 42, `${"a".repeat(250)}@example.com`])(
    "refuses the e-mail %j",
    (value) => {
      expect(() => validateEmail(value)).toThrow(/email must be an e-mail address; got/);
    },
  );

  it("takes user ids as usr_ and 20 lowercase letters or digits", () => {
    expect(validateUserId("usr_0123456789abcdefghij")).toBe("usr_0123456789abcdefghij");
    for (const value of ["usr_0123456789ABCDEFGHIJ", "usr_123", "key_0123456789abcdefghij", null])
      expect(() => validateUserId(value)).toThrow(/user id must be usr_ and 20 letters or digits/);
  });

  it("takes the roles of each ladder, and names them when refusing", () => {
    expect(validateAccountRole("member")).toBe("member");
    expect(validateOperatorRole("operator-viewer")).toBe("operator-viewer");
    expect(() => validateAccountRole("operator")).toThrow(
      'role must be one of owner, member, viewer; got "operator"',
    );
    expect(() => validateOperatorRole("owner")).toThrow(
      'operator role must be one of operator, operator-viewer; got "owner"',
    );
  });
});
