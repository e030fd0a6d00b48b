// What each audience of a key sees: the client's allow-list of fields, the CLI's list, and the serializer that
// copies exactly those fields in their order.

import { describe, expect, it } from "vitest";
import { CLIENT_KEY_FIELDS, fieldSerializer, LISTED_KEY_FIELDS } from "../../src/services/key-fields.js";

describe("key fields", () => {
  it("are copied exactly and in the fields' order, whatever else the value holds", () => {
    const pick = fieldSerializer(["b", "a"] as const);
    const view = pick({ a: 1, b: 2, secret: "never" });
    expect(view).toEqual({ b: 2, a: 1 });
    expect(Object.keys(view)).toEqual(["b", "a"]);
    expect(JSON.stringify(view)).not.toContain("never");
  });

  it("leave the key's revocation out of the client's view, and into the CLI's list", () => {
    expect(CLIENT_KEY_FIELDS).not.toContain("revoked_at");
    expect(LISTED_KEY_FIELDS).toEqual([...CLIENT_KEY_FIELDS, "revoked_at"]);
  });
});
