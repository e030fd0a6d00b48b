// Where a sign-in may send the browser back: paths of the dashboard only; anything that could leave it is "/".

import { describe, expect, it } from "vitest";
import { safeReturnTo } from "../../src/admin/return-to.js";

describe("safeReturnTo", () => {
  it.each([
    ["/", "/"],
    ["/#/accounts/acme", "/#/accounts/acme"],
    ["/#/accounts/acme/keys/key_1?tab=usage", "/#/accounts/acme/keys/key_1?tab=usage"],
    // Percent-escapes stay escapes: nothing decodes them into the Location header.
    ["/%0d%0aSet-Cookie:x", "/%0d%0aSet-Cookie:x"],
  ])("keeps the dashboard's own path %s", (given, kept) => {
    expect(safeReturnTo(given)).toBe(kept);
  });

  it.each([
    "https://evil.example",
    "http://evil.example/#/x",
    "//evil.example",
    "//evil.example/path",
    "/\\evil.example",
    "\\\\evil.example",
    "javascript:alert(1)",
    "evil.example",
    "#/accounts",
    "/\tevil",
    "",
    `/${"a".repeat(3000)}`,
  ])("ignores %j in favour of /", (given) => {
    expect(safeReturnTo(given)).toBe("/");
  });

  it("ignores what is not a string", () => {
    for (const value of [undefined, null, 5, ["/"], { path: "/" }]) expect(safeReturnTo(value)).toBe("/");
  });
});
