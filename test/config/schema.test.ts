// Settings whose limits protect money or data: the schema refuses values that would break them, saying why.

import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";

function issues(input: unknown): string[] {
  const result = configSchema.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("configSchema", () => {
  it("keeps daily usage at least 31 days, the longest a switch to a monthly budget counts back", () => {
    expect(issues({ billing: { usageRetentionDays: 30 } })).toEqual([
      "billing.usageRetentionDays: must be at least 31: a key switched to a monthly budget counts up to 31 days of usage",
    ]);
    expect(issues({ billing: { usageRetentionDays: 31 } })).toEqual([]);
    expect(configSchema.parse({}).billing.usageRetentionDays).toBe(400);
  });

  it("expires a key's recent requests after requestLog.retentionDays, 30 by default and at least 1", () => {
    expect(configSchema.parse({}).requestLog.retentionDays).toBe(30);
    expect(configSchema.parse({ requestLog: { retentionDays: 1 } }).requestLog.retentionDays).toBe(1);
    expect(issues({ requestLog: { retentionDays: 0 } })).toEqual([
      expect.stringMatching(/^requestLog\.retentionDays: .*>=1/),
    ]);
    expect(issues({ requestLog: { retentionDays: 1.5 } })).toHaveLength(1);
  });

  it("refuses credentials in upstream.url, which would be logged and never sent", () => {
    expect(issues({ upstream: { url: "https://user:secret@models.internal:8000" } })).toEqual([
      "upstream.url: must not contain credentials; put the model server's key in upstream.apiKey (TUNNEL_UPSTREAM_API_KEY)",
    ]);
    expect(issues({ upstream: { url: "http://models.internal:8000/v1?x=a@b" } })).toEqual([]);
    expect(issues({ upstream: { url: "ftp://models.internal" } })).toEqual([
      "upstream.url: must be an http:// or https:// URL",
    ]);
  });
});
