// A person's record as a typed value: the user hash read into a UserRecord with its defaults, and grants read
// back from their JSON, where anything malformed is no grant at all.

import { describe, expect, it } from "vitest";
import { parseGrants, parseUser } from "../../../src/store/people/user-record.js";

describe("parseGrants", () => {
  it("reads source -> role, keeping only roles that are text", () => {
    expect(parseGrants('{"direct":"viewer","oidc:corp":"owner","scim":7}')).toEqual({
      direct: "viewer",
      "oidc:corp": "owner",
    });
  });

  it("reads nothing, broken JSON, or JSON that is not an object as no grant at all", () => {
    for (const json of [null, undefined, "", "{not json", "null", '["viewer"]', '"owner"'])
      expect(parseGrants(json)).toEqual({});
  });
});

describe("parseUser", () => {
  it("reads every field of a user hash", () => {
    expect(
      parseUser({
        id: "usr_1",
        name: "Ann",
        email: "ann@example.com",
        status: "disabled",
        operator: '{"direct":"operator"}',
        password: "$argon2id$...",
        providers: "corp,other",
        created_at: "1000",
        last_sign_in_at: "2000",
      }),
    ).toEqual({
      id: "usr_1",
      name: "Ann",
      email: "ann@example.com",
      status: "disabled",
      operatorGrants: { direct: "operator" },
      passwordHash: "$argon2id$...",
      providers: ["corp", "other"],
      createdAt: 1000,
      lastSignInAt: 2000,
    });
  });

  it("names a person by their e-mail, active, with no password, provider or sign-in when the hash says none", () => {
    expect(parseUser({ id: "usr_1", email: "ann@example.com", password: "", providers: "" })).toEqual({
      id: "usr_1",
      name: "ann@example.com",
      email: "ann@example.com",
      status: "active",
      operatorGrants: {},
      passwordHash: null,
      providers: [],
      createdAt: 0,
      lastSignInAt: null,
    });
  });

  it("reads a hash without an id or an e-mail (no user, or a key left half-written) as no user", () => {
    expect(parseUser({})).toBeNull();
    expect(parseUser({ id: "usr_1" })).toBeNull();
    expect(parseUser({ email: "ann@example.com" })).toBeNull();
  });
});
