// An instant on the wire: an ISO 8601 string, which the OpenAPI document describes as a date-time.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isoTime } from "../../src/core/time-schema.js";

describe("isoTime", () => {
  it("is a string, described as a date-time", () => {
    expect(isoTime.parse("2026-11-21T10:00:00.000Z")).toBe("2026-11-21T10:00:00.000Z");
    expect(isoTime.safeParse(1_795_292_755_000).success).toBe(false);
    expect(z.toJSONSchema(isoTime)).toMatchObject({ type: "string", format: "date-time" });
  });
});
