// A list request's query: filters reduced to eq comparisons joined by and on the attributes we look up by
// (anything else refused with invalidFilter, naming what is supported), pages bounded as RFC 7644 says, and
// attributes projected.

import { describe, expect, it } from "vitest";
import type { GatewayError } from "../../../src/core/errors.js";
import { listResponse, pageItems, pageOf, parseFilter, project } from "../../../src/identity/scim/query.js";

const USERS = ["userName", "externalId", "displayName", "id"];

function refusal(run: () => unknown): { code: string; scimType: unknown; message: string } {
  try {
    run();
  } catch (error) {
    const e = error as GatewayError;
    return { code: e.code, scimType: e.fields?.scimType, message: e.message };
  }
  throw new Error("no refusal");
}

describe("parseFilter", () => {
  it.each([
    ['userName eq "Ann@Example.com"', [{ attribute: "userName", value: "Ann@Example.com" }]],
    ['USERNAME Eq "a"', [{ attribute: "userName", value: "a" }]],
    ["externalId eq jyoung", [{ attribute: "externalId", value: "jyoung" }]],
    ["externalId eq 42", [{ attribute: "externalId", value: "42" }]],
    [
      'userName eq "a" and displayName eq "A b"',
      [
        { attribute: "userName", value: "a" },
        { attribute: "displayName", value: "A b" },
      ],
    ],
  ])("reads %s", (filter, conditions) => {
    expect(parseFilter(filter, USERS)).toEqual(conditions);
  });

  it("reads a group's members filter as members.value", () => {
    expect(parseFilter('id eq "g" and members[value eq "u"]', ["id", "members.value"])).toEqual([
      { attribute: "id", value: "g" },
      { attribute: "members.value", value: "u" },
    ]);
  });

  it("has no conditions without a filter", () => {
    expect(parseFilter(undefined, USERS)).toEqual([]);
    expect(parseFilter("  ", USERS)).toEqual([]);
  });

  it.each([
    'userName co "a"',
    'userName eq "a" or userName eq "b"',
    'title eq "x"',
    "userName pr",
    "userName eq",
    "active eq true",
    'emails[type eq "work"].value eq "a@b.c"',
  ])("refuses %s with invalidFilter naming what is supported", (filter) => {
    expect(refusal(() => parseFilter(filter, USERS))).toMatchObject({
      code: "invalid_request",
      scimType: "invalidFilter",
      message: expect.stringContaining("use eq on userName, externalId, displayName, id, joined with and"),
    });
  });

  it("refuses what cannot be read, and a filter over 1000 characters", () => {
    expect(refusal(() => parseFilter("((", USERS))).toMatchObject({ scimType: "invalidFilter" });
    expect(refusal(() => parseFilter("__proto__ eq 1", USERS))).toMatchObject({ scimType: "invalidFilter" });
    expect(refusal(() => parseFilter(`userName eq "${"a".repeat(990)}"`, USERS))).toMatchObject({
      message: "A filter may be at most 1000 characters long.",
    });
  });
});

describe("pages", () => {
  const q = (query: string) => pageOf(new URLSearchParams(query));

  it("starts at 1 with 100 a page, reads startIndex below 1 as 1 and count below 0 as 0, at most 200", () => {
    expect(q("")).toEqual({ startIndex: 1, count: 100 });
    expect(q("startIndex=0&count=-5")).toEqual({ startIndex: 1, count: 0 });
    expect(q("startIndex=7&count=5000")).toEqual({ startIndex: 7, count: 200 });
  });

  it("refuses a count or startIndex that is not a whole number", () => {
    expect(refusal(() => q("count=1.5"))).toMatchObject({ scimType: "invalidValue" });
    expect(refusal(() => q("startIndex=abc"))).toMatchObject({ scimType: "invalidValue" });
  });

  it("answers one page of the whole with the whole's count", () => {
    const items = [1, 2, 3, 4, 5];
    expect(pageItems(items, { startIndex: 4, count: 2 })).toEqual([4, 5]);
    expect(pageItems(items, { startIndex: 9, count: 2 })).toEqual([]);
    expect(listResponse([{ id: "a" }], 5, { startIndex: 3, count: 1 })).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 5,
      startIndex: 3,
      itemsPerPage: 1,
      Resources: [{ id: "a" }],
    });
  });
});

describe("project", () => {
  const resource = { schemas: ["s"], id: "x", userName: "u", name: { givenName: "g" }, emails: [] };

  it("keeps only the attributes asked for, id and schemas always", () => {
    expect(project(resource, new URLSearchParams("attributes=name.givenName,USERNAME"))).toEqual({
      schemas: ["s"],
      id: "x",
      userName: "u",
      name: { givenName: "g" },
    });
  });

  it("drops the attributes asked away", () => {
    expect(project(resource, new URLSearchParams("excludedAttributes=emails,id"))).toEqual({
      schemas: ["s"],
      id: "x",
      userName: "u",
      name: { givenName: "g" },
    });
  });
});
