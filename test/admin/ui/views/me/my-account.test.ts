// "My account"'s pure parts: a session's browser in a few words, and the roles a person may give a token.

import { describe, expect, it } from "vitest";
import { tokenScopes } from "../../../../../src/admin/ui/views/me/token-scopes.js";
import { describeUserAgent } from "../../../../../src/admin/ui/views/me/user-agent.js";

describe("a session's browser", () => {
  it("is named with its system from the User-Agent", () => {
    expect(
      describeUserAgent("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"),
    ).toEqual({ browser: "Firefox", system: "Linux" });
    expect(
      describeUserAgent(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 Edg/126.0",
      ),
    ).toEqual({ browser: "Edge", system: "Windows" });
    expect(
      describeUserAgent(
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
      ),
    ).toEqual({ browser: "Safari", system: "macOS" });
    expect(
      describeUserAgent(
        "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile",
      ),
    ).toEqual({ browser: "Chrome", system: "Android" });
    expect(describeUserAgent("")).toEqual({ browser: null, system: null });
  });
});

describe("the roles a token may have", () => {
  it("are the person's roles and those below them, per account", () => {
    expect(
      tokenScopes({
        operator_role: "operator-viewer",
        memberships: [
          { account_id: "acme", account_name: "Acme", role: "member" },
          { account_id: "beta", account_name: "Beta", role: "viewer" },
        ],
      }).map((s) => s.value),
    ).toEqual(["operator-viewer", "member@acme", "viewer@acme", "viewer@beta"]);
    expect(tokenScopes({ operator_role: "operator", memberships: [] }).map((s) => s.value)).toEqual([
      "operator",
      "operator-viewer",
    ]);
    expect(tokenScopes({ operator_role: null, memberships: [] })).toEqual([]);
  });
});
