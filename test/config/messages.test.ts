// What is wrong with a setting, in the words of the configuration's documentation rather than zod's, and
// never repeating the value (a setting may be a secret). Checked through the real configuration schema,
// and small schemas for the checks it does not make.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { settingMessage } from "../../src/config/messages.js";
import { configSchema } from "../../src/config/schema.js";

function problems(input: unknown, schema: z.ZodType = configSchema): string[] {
  const result = schema.safeParse(input, { error: settingMessage });
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("settingMessage", () => {
  it("says which type a setting must be", () => {
    expect(problems({ listen: { port: "eighty" } })).toEqual(["listen.port: must be a number"]);
    expect(problems({ listen: { port: 80.5 } })).toEqual(["listen.port: must be a whole number"]);
    expect(problems({ metrics: { enabled: "yes" } })).toEqual(["metrics.enabled: must be true or false"]);
    expect(problems({ security: { trustedProxies: "10.0.0.0/8" } })).toEqual([
      "security.trustedProxies: must be a list",
    ]);
    expect(problems({ listen: [] })).toEqual(["listen: must be a mapping of settings"]);
    expect(problems({ name: 5 }, z.object({ name: z.string() }))).toEqual(["name: must be text"]);
  });

  it("says a missing setting is required", () => {
    expect(problems({}, z.object({ url: z.string() }))).toEqual(["url: required"]);
    expect(problems({}, z.object({ amount: z.union([z.number(), z.string()]) }))).toEqual([
      "amount: required",
    ]);
  });

  it("words bounds for numbers, texts and lists, inclusive or not", () => {
    expect(problems({ listen: { port: -1 } })).toEqual(["listen.port: must be at least 0"]);
    expect(problems({ listen: { port: 65_536 } })).toEqual(["listen.port: must be at most 65535"]);
    expect(problems(0, z.number().gt(0))).toEqual([": must be more than 0"]);
    expect(problems(5, z.number().lt(5))).toEqual([": must be less than 5"]);
    expect(problems("", z.string().min(1))).toEqual([": must not be empty"]);
    expect(problems("ab", z.string().min(16))).toEqual([": must be at least 16 characters long"]);
    expect(problems("abcd", z.string().max(3))).toEqual([": must be at most 3 characters long"]);
    expect(problems([], z.array(z.string()).min(1))).toEqual([": must list at least 1"]);
    expect(problems(["a", "b"], z.array(z.string()).max(1))).toEqual([": must list at most 1"]);
  });

  it("lists the values a setting may take, and asks for an amount or a URL", () => {
    expect(problems({ logging: { level: "loud" } })).toEqual([
      "logging.level: must be one of trace, debug, info, warn, error, fatal, silent",
    ]);
    expect(problems({ pricing: { default: { input: true, output: 1 } } })).toEqual([
      "pricing.default.input: must be an amount such as 100 or 12.5",
    ]);
    expect(problems("x", z.url())).toEqual([": must be a URL"]);
    expect(problems("x", z.email())).toEqual([": must be email"]);
  });

  it("keeps the schema's own words where it has them", () => {
    expect(problems({ upstream: { url: "ftp://models" } })).toEqual([
      "upstream.url: must be an http:// or https:// URL",
    ]);
    expect(problems({ billing: { timezone: "Mars/Olympus" } })[0]).toMatch(/^billing\.timezone: /);
    expect(problems({ billing: { timezone: "Mars/Olympus" } })[0]).not.toMatch(/Invalid input/);
  });

  it("never repeats the value it refuses", () => {
    const secret = "hunter2-not-a-port";
    expect(problems({ listen: { port: secret } }).join()).not.toContain(secret);
    expect(problems({ logging: { level: secret } }).join()).not.toContain(secret);
    expect(problems({ admin: { token: "short" } }).join()).not.toContain("short");
  });
});
