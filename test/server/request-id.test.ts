// The id that ties a response to its log line: a client's own kept when it is a reasonable token, anything
// else replaced, so that a header cannot inject text into the logs.

import { describe, expect, it } from "vitest";
import { requestIdFor } from "../../src/server/request-id.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("requestIdFor", () => {
  it("keeps a client's id of 1 to 128 token characters", () => {
    for (const id of ["a", "req-42", "trace:9f/ab+cd=", "user@host.example", "x".repeat(128)]) {
      expect(requestIdFor(id)).toBe(id);
    }
  });

  it("replaces an unsafe, empty, overlong or repeated header with a random UUID", () => {
    for (const header of [
      "",
      "x".repeat(129),
      "two words",
      'quote"d',
      "line\nbreak",
      "ünïcode",
      "{json}",
      ["a", "b"],
      undefined,
    ]) {
      expect(requestIdFor(header as string | string[] | undefined), JSON.stringify(header)).toMatch(UUID);
    }
    expect(requestIdFor(undefined)).not.toBe(requestIdFor(undefined));
  });
});
