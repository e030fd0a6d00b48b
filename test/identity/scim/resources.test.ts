// SCIM's wire shapes in and out: a User and a Group as clients send them, checked by scimmy and reduced to what
// we keep; the vendors' departures from the RFC put right (Entra ID's "False", its member removals by a value
// list, its enterprise extension; Okta's password); PATCH in both vendors' shapes.

import { describe, expect, it } from "vitest";
import type { GatewayError } from "../../../src/core/errors.js";
import { applyPatch, groupInput, normalisePatch, userInput } from "../../../src/identity/scim/resources.js";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

function refusal(run: () => unknown): { scimType: unknown; message: string } {
  try {
    run();
  } catch (error) {
    const e = error as GatewayError;
    return { scimType: e.fields?.scimType, message: e.message };
  }
  throw new Error("no refusal");
}

describe("userInput", () => {
  it("keeps the e-mail as userName, case-folded, and names the person from displayName or their name parts", () => {
    expect(
      userInput({
        schemas: [USER],
        userName: " Ann@Example.COM ",
        name: { givenName: "Ann", familyName: "Lee" },
      }),
    ).toEqual({
      email: "ann@example.com",
      name: "Ann Lee",
      active: undefined,
      attributes: { externalId: null, givenName: "Ann", familyName: "Lee", formatted: null, emails: [] },
    });
    expect(userInput({ schemas: [USER], userName: "a@b.co", displayName: "Anna" }).name).toBe("Anna");
    expect(userInput({ schemas: [USER], userName: "a@b.co" }).name).toBe("a@b.co");
  });

  it('reads Entra ID\'s "True" and "False" as booleans, and drops the password and the extensions', () => {
    const input = userInput({
      schemas: [USER, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      userName: "a@b.co",
      active: "False",
      password: "1mz050nq",
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "x" },
    });
    expect(input.active).toBe(false);
    expect(JSON.stringify(input)).not.toContain("1mz050nq");
    expect(JSON.stringify(input)).not.toContain("department");
  });

  it("refuses a userName that is not an e-mail, wrong types, and names too long", () => {
    expect(refusal(() => userInput({ schemas: [USER], userName: "jdoe" }))).toMatchObject({
      scimType: "invalidValue",
      message: expect.stringContaining("userName must be the person's e-mail address"),
    });
    expect(refusal(() => userInput({ schemas: [USER], userName: ["a@b.co"] }))).toMatchObject({
      scimType: "invalidValue",
    });
    expect(
      refusal(() => userInput({ schemas: [USER], userName: "a@b.co", externalId: "x".repeat(257) })),
    ).toMatchObject({
      message: "externalId must be at most 256 characters long.",
    });
    expect(refusal(() => userInput("a@b.co"))).toMatchObject({ scimType: "invalidSyntax" });
  });
});

describe("groupInput", () => {
  it("keeps the displayName, externalId and distinct members", () => {
    expect(
      groupInput({
        displayName: "Eng",
        externalId: "oid",
        members: [{ value: "usr_a" }, { value: "usr_a" }],
      }),
    ).toEqual({ displayName: "Eng", externalId: "oid", members: ["usr_a"] });
  });

  it("refuses a group without a displayName", () => {
    expect(refusal(() => groupInput({ members: [] }))).toMatchObject({ scimType: "invalidValue" });
  });
});

describe("PATCH", () => {
  const user = {
    schemas: [USER],
    id: "usr_1",
    userName: "a@b.co",
    active: true,
    emails: [{ value: "a@b.co", type: "work" }],
  };

  it("turns Entra ID's member removal by value list into one path filter per member", () => {
    const message = normalisePatch({
      schemas: [PATCH],
      Operations: [
        { op: "Remove", path: "members", value: [{ $ref: null, value: "usr_1" }, { value: "usr_2" }] },
      ],
    });
    expect(message.Operations).toEqual([
      { op: "remove", path: 'members[value eq "usr_1"]' },
      { op: "remove", path: 'members[value eq "usr_2"]' },
    ]);
  });

  it("drops operations on schema extensions, keeping the rest", () => {
    const message = normalisePatch({
      schemas: [PATCH],
      Operations: [
        {
          op: "Add",
          path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department",
          value: "x",
        },
        { op: "Replace", path: "displayName", value: "D" },
      ],
    });
    expect(message.Operations).toEqual([{ op: "Replace", path: "displayName", value: "D" }]);
  });

  it("applies Okta's no-path replace and Entra ID's filtered paths", async () => {
    expect(
      await applyPatch("User", user, {
        schemas: [PATCH],
        Operations: [{ op: "replace", value: { active: false } }],
      }),
    ).toMatchObject({ active: false });
    const entra = await applyPatch("User", user, {
      schemas: [PATCH],
      Operations: [
        { op: "Replace", path: 'emails[type eq "work"].value', value: "new@b.co" },
        { op: "Replace", path: "active", value: "False" },
      ],
    });
    expect(entra).toMatchObject({ active: false, emails: [{ value: "new@b.co", type: "work" }] });
  });

  it("refuses a path to a read-only attribute, an unknown op and an empty PatchOp", async () => {
    const scimTypeOf = (body: unknown) =>
      applyPatch("User", user, body).then(
        () => null,
        (error: GatewayError) => error.fields?.scimType,
      );
    expect(
      await scimTypeOf({ schemas: [PATCH], Operations: [{ op: "replace", path: "id", value: "x" }] }),
    ).toBe("mutability");
    expect(await scimTypeOf({ schemas: [PATCH], Operations: [{ op: "move", path: "active" }] })).toBe(
      "invalidSyntax",
    );
    expect(await scimTypeOf({ schemas: [PATCH], Operations: [] })).toBe("invalidValue");
    expect(await scimTypeOf({ schemas: ["x"], Operations: [{ op: "add", path: "title", value: "t" }] })).toBe(
      "invalidSyntax",
    );
  });
});
