// The admin API's request shapes: unknown fields and wrong types refused, amounts as numbers or decimal
// text, list limits as whole numbers from 1; the values themselves are judged by the service layer.

import { describe, expect, it } from "vitest";
import type { z } from "zod";
import * as S from "../../src/admin/schemas.js";

function problems(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.code}`);
}

describe("request bodies", () => {
  it("refuse fields they do not know, so that a misspelt option is never silently ignored", () => {
    expect(problems(S.CreateAccountBody, { id: "acme", balanse: 5 })).toEqual([": unrecognized_keys"]);
    expect(problems(S.TopUpBody, { amount: 1, note: "x" })).toEqual([": unrecognized_keys"]);
    expect(problems(S.CreateKeyBody, { name: "k", logBodies: false })).toEqual([": unrecognized_keys"]);
    expect(problems(S.UpdateKeyBody, { ttl: "1d", maxParallel: 2 })).toEqual([": unrecognized_keys"]);
    expect(problems(S.RotateKeyBody, { grace: "1h", graceful: true })).toEqual([": unrecognized_keys"]);
  });

  it("take limits as numbers or null (none), and a rotation's grace as text or nothing", () => {
    expect(problems(S.CreateKeyBody, { name: "k", rpm: 60, tpm: null, max_parallel: 4 })).toEqual([]);
    expect(problems(S.UpdateKeyBody, { rpm: null, tpm: 1000, ttl: "30d" })).toEqual([]);
    // The service judges the value (a whole number from 1 on); the schema only the type.
    expect(problems(S.UpdateKeyBody, { rpm: 0 })).toEqual([]);
    expect(problems(S.CreateKeyBody, { name: "k", rpm: "60" })).toEqual(["rpm: invalid_type"]);
    expect(problems(S.RotateKeyBody, {})).toEqual([]);
    expect(problems(S.RotateKeyBody, { grace: "24h" })).toEqual([]);
    expect(problems(S.RotateKeyBody, { grace: 86_400 })).toEqual(["grace: invalid_type"]);
  });

  it("take amounts as JSON numbers or decimal text, and nothing else", () => {
    for (const amount of [5, 12.5, "12.5", "0.000001"]) expect(problems(S.TopUpBody, { amount })).toEqual([]);
    for (const amount of [true, null, [5], { rubles: 5 }]) {
      expect(problems(S.TopUpBody, { amount }), JSON.stringify(amount)).toEqual(["amount: invalid_union"]);
    }
    expect(problems(S.TopUpBody, {})).toEqual(["amount: invalid_union"]);
  });

  it("take a key's budget as an amount or null (none), its period as day, week or month", () => {
    expect(problems(S.CreateKeyBody, { name: "k", budget: null, models: null })).toEqual([]);
    expect(
      problems(S.CreateKeyBody, {
        name: "k",
        budget: "5",
        period: "week",
        ttl: "30d",
        models: ["m"],
        log_bodies: false,
      }),
    ).toEqual([]);
    expect(problems(S.CreateKeyBody, { name: "k", period: "year" })).toEqual(["period: invalid_value"]);
    expect(problems(S.CreateKeyBody, { name: "k", log_bodies: "no" })).toEqual(["log_bodies: invalid_type"]);
    expect(problems(S.CreateKeyBody, { name: "k", models: "m" })).toEqual(["models: invalid_type"]);
    expect(problems(S.CreateKeyBody, {})).toEqual(["name: invalid_type"]);
    expect(problems(S.UpdateKeyBody, {})).toEqual([]);
    expect(problems(S.UpdateKeyBody, { budget: null, models: null })).toEqual([]);
  });
});

describe("queries", () => {
  it("take a limit only as a whole number from 1, naming the rule", () => {
    for (const limit of ["1", "100", "1000000"]) expect(problems(S.LimitQuery, { limit })).toEqual([]);
    for (const limit of ["0", "01", "-1", "1.5", "1e3", "", " 5"]) {
      const result = S.LimitQuery.safeParse({ limit });
      expect(result.success, limit).toBe(false);
      expect(result.error?.issues[0]?.message).toBe("must be a whole number from 1 on");
    }
    expect(problems(S.AuditQuery, { account: "acme", limit: "0" })).toEqual(["limit: invalid_format"]);
  });

  it("refuse parameters they do not know", () => {
    expect(problems(S.LimitQuery, { limit: "5", offset: "5" })).toEqual([": unrecognized_keys"]);
    expect(problems(S.UsageQuery, { from: "2026-11-01", until: "2026-11-02" })).toEqual([
      ": unrecognized_keys",
    ]);
    expect(problems(S.UsageQuery, {})).toEqual([]);
  });
});

describe("responses", () => {
  it("describe a created key as a key with its value", () => {
    expect(Object.keys(S.CreatedKey.shape)).toEqual([...Object.keys(S.Key.shape), "key"]);
  });

  it("describe the error body every refusal has", () => {
    expect(problems(S.ErrorBody, { error: { message: "m", type: "t", code: "c" } })).toEqual([]);
    expect(problems(S.ErrorBody, { error: { message: "m", type: "t" } })).toEqual([
      "error.code: invalid_type",
    ]);
  });
});
