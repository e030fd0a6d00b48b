// Roles: the two ladders (operator roles over every account, account roles in one), the grants of each source
// and the role they add up to.

import { describe, expect, it } from "vitest";
import {
  ACCOUNT_ROLES,
  atLeast,
  effectiveAccountRole,
  effectiveOperatorRole,
  grantsOf,
  highest,
  isAccountRole,
  isOperatorRole,
  OPERATOR_ROLES,
  oidcSource,
} from "../../src/core/roles.js";

describe("roles", () => {
  it("add up to the highest grant of any source", () => {
    expect(effectiveAccountRole({ direct: "viewer", "oidc:corp": "owner", scim: "member" })).toBe("owner");
    expect(effectiveAccountRole({ scim: "member", direct: "viewer" })).toBe("member");
    expect(effectiveAccountRole({})).toBeNull();
    expect(effectiveOperatorRole({ direct: "operator-viewer", "oidc:corp": "operator" })).toBe("operator");
    expect(highest(ACCOUNT_ROLES, [])).toBeNull();
  });

  it("are at least a role when that role or one above it", () => {
    expect(atLeast(ACCOUNT_ROLES, "owner", "viewer")).toBe(true);
    expect(atLeast(ACCOUNT_ROLES, "member", "member")).toBe(true);
    expect(atLeast(ACCOUNT_ROLES, "viewer", "member")).toBe(false);
    expect(atLeast(ACCOUNT_ROLES, null, "viewer")).toBe(false);
    expect(atLeast(OPERATOR_ROLES, "operator-viewer", "operator")).toBe(false);
  });

  it("are told apart by ladder, and stored grants of another ladder or unknown roles dropped", () => {
    expect(isAccountRole("owner")).toBe(true);
    expect(isAccountRole("operator")).toBe(false);
    expect(isOperatorRole("operator-viewer")).toBe(true);
    expect(isOperatorRole("owner")).toBe(false);
    expect(grantsOf({ direct: "owner", scim: "operator", "oidc:x": "admin" }, isAccountRole)).toEqual({
      direct: "owner",
    });
  });

  it("name a provider's grants by its id", () => {
    expect(oidcSource("corp")).toBe("oidc:corp");
  });
});
