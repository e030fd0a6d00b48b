// The page's form checks mirror the server's rules: the same edge cases as the server's own tests, and
// every verdict agrees with the service layer's.

import { describe, expect, it } from "vitest";
import {
  checkAccountId,
  checkAmount,
  checkBudget,
  checkKeyChanges,
  checkKeyForm,
  checkModels,
  checkName,
  checkTtl,
  type KeyState,
  keyFormOf,
  parseLifetime,
} from "../../src/admin/ui/validate.js";
import { parsePositiveRubles, parseRubles } from "../../src/billing/money.js";
import { parseLifetime as serverLifetime } from "../../src/services/lifetime.js";
import { validateAccountId, validateModels, validateName } from "../../src/services/validate.js";

function serverAccepts(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch {
    return false;
  }
}

describe("lifetimes", () => {
  it.each([
    ["15m", 15 * 60_000],
    ["2h", 2 * 3600_000],
    ["30d", 30 * 86_400_000],
    ["1w", 7 * 86_400_000],
    ["1h30m", 90 * 60_000],
    ["900s", 15 * 60_000],
    [" 2H ", 2 * 3600_000],
  ])("reads %j", (text, ms) => {
    expect(parseLifetime(text)).toEqual({ ok: true, value: ms });
  });

  it("reads never as unlimited", () => {
    expect(parseLifetime("never")).toEqual({ ok: true, value: null });
    expect(parseLifetime("NEVER")).toEqual({ ok: true, value: null });
    expect(checkTtl("never")).toEqual({ ok: true, value: "never" });
  });

  it("refuses anything shorter than 15 minutes", () => {
    for (const text of ["14m", "899s", "14m59s", "0m"]) {
      expect(parseLifetime(text)).toEqual({ ok: false, problem: "v.ttl.min" });
    }
  });

  it("refuses what is not a duration", () => {
    for (const text of ["15", "15 minutes", "1y", "1.5h", "-15m", "m15", "forever"]) {
      expect(parseLifetime(text)).toEqual({ ok: false, problem: "v.ttl.format" });
    }
  });

  it("refuses absurdly long lifetimes in favour of never", () => {
    expect(parseLifetime("10000w")).toEqual({ ok: false, problem: "v.ttl.max" });
    expect(parseLifetime("5200w")).toMatchObject({ ok: true });
  });

  it("leave the field empty for a key that never expires", () => {
    expect(checkTtl("")).toEqual({ ok: true, value: null });
    expect(checkTtl("  ")).toEqual({ ok: true, value: null });
    expect(checkTtl(" 30d ")).toEqual({ ok: true, value: "30d" });
  });

  it("agree with the server on every case", () => {
    const cases = [
      "15m",
      "14m",
      "899s",
      "900s",
      "1h30m",
      "never",
      "Never",
      "1y",
      "",
      "10000w",
      "5214w",
      "0m",
      "2H",
    ];
    for (const text of cases) {
      expect(parseLifetime(text).ok, text).toBe(serverAccepts(() => serverLifetime(text)));
    }
  });
});

describe("amounts", () => {
  it.each([
    ["1000", "1000"],
    ["12.5", "12.5"],
    ["0.000001", "0.000001"],
    [" 7 ", "7"],
    ["999999999.999999", "999999999.999999"],
  ])("accepts %j as %j", (text, value) => {
    expect(checkAmount(text)).toEqual({ ok: true, value });
  });

  it("refuses zero and negative budgets, exponents, commas and more than six decimals", () => {
    expect(checkAmount("0")).toEqual({ ok: false, problem: "v.amount.positive" });
    expect(checkAmount("0.000000")).toEqual({ ok: false, problem: "v.amount.positive" });
    for (const text of [
      "-1",
      "+1",
      "1e3",
      "1.0000001",
      "1,5",
      "abc",
      "1000000000",
      "0x10",
      ".5",
      "5.",
      "NaN",
      "",
    ]) {
      expect(checkAmount(text), text).toEqual({ ok: false, problem: "v.amount.format" });
    }
  });

  it("allow zero where the server does (an opening balance)", () => {
    expect(checkAmount("0", false)).toEqual({ ok: true, value: "0" });
    expect(checkAmount("-1", false)).toEqual({ ok: false, problem: "v.amount.format" });
  });

  it("agree with the server on every case", () => {
    const cases = [
      "0",
      "-1",
      "1e3",
      "1.0000001",
      "1.000001",
      "1,5",
      "1000000000",
      "999999999.999999",
      " 3 ",
      "00.10",
    ];
    for (const text of cases) {
      expect(checkAmount(text, true).ok, text).toBe(serverAccepts(() => parsePositiveRubles(text, "budget")));
      expect(checkAmount(text, false).ok, text).toBe(serverAccepts(() => parseRubles(text, "balance")));
    }
  });

  it("leave the budget empty for no budget", () => {
    expect(checkBudget(" ")).toEqual({ ok: true, value: null });
    expect(checkBudget("0")).toEqual({ ok: false, problem: "v.amount.positive" });
  });
});

describe("names", () => {
  it("are trimmed, 1 to 200 characters, without control characters", () => {
    expect(checkName("  prod  ")).toEqual({ ok: true, value: "prod" });
    expect(checkName("   ")).toEqual({ ok: false, problem: "v.name.length" });
    expect(checkName("x".repeat(200))).toMatchObject({ ok: true });
    expect(checkName("x".repeat(201))).toEqual({ ok: false, problem: "v.name.length" });
    for (const bad of ["bad\nname", "tab\there", "bell\u0007", "sep\u2028arator", "c1\u0085"]) {
      expect(checkName(bad), JSON.stringify(bad)).toEqual({ ok: false, problem: "v.name.control" });
    }
    expect(checkName("Ключ для прода 🚀")).toMatchObject({ ok: true });
  });

  it("agree with the server on every case", () => {
    for (const text of ["prod", " ", "a\nb", "x".repeat(200), "x".repeat(201), " ok ", "\u2029"]) {
      expect(checkName(text).ok, JSON.stringify(text)).toBe(serverAccepts(() => validateName(text)));
    }
  });
});

describe("models", () => {
  it("are split on commas and lines, trimmed and deduplicated; empty means all", () => {
    expect(checkModels("")).toEqual({ ok: true, value: null });
    expect(checkModels(" , \n")).toEqual({ ok: true, value: null });
    expect(checkModels("demo-small, demo-large\ndemo-small")).toEqual({
      ok: true,
      value: ["demo-small", "demo-large"],
    });
  });

  it("are at most 100 names of at most 200 printable characters", () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `m${i}`);
    expect(checkModels(hundred.join(","))).toMatchObject({ ok: true });
    expect(checkModels([...hundred, "one-more"].join(","))).toEqual({ ok: false, problem: "v.models.count" });
    expect(checkModels("x".repeat(200))).toMatchObject({ ok: true });
    expect(checkModels("x".repeat(201))).toEqual({ ok: false, problem: "v.models.name" });
    expect(checkModels("a\tb")).toEqual({ ok: false, problem: "v.models.name" });
  });

  it("send what the server accepts", () => {
    const checked = checkModels("a, b ,a\nc");
    expect(checked.ok && validateModels(checked.value)).toEqual(["a", "b", "c"]);
  });
});

describe("account ids", () => {
  it("agree with the server", () => {
    for (const id of [
      "acme",
      "a",
      "a-b_c9",
      "",
      "Acme",
      "a b",
      "-a",
      "x".repeat(64),
      "x".repeat(65),
      "a:b",
    ]) {
      expect(checkAccountId(id).ok, id).toBe(serverAccepts(() => validateAccountId(id)));
    }
  });
});

describe("the create-key form", () => {
  const form = { name: "ci", budget: "", period: "month" as const, ttl: "", models: "", logBodies: true };

  it("sends only what was given; a period only with a budget", () => {
    expect(checkKeyForm(form)).toEqual({ ok: true, body: { name: "ci", log_bodies: true } });
    expect(checkKeyForm({ ...form, period: "day" })).toEqual({
      ok: true,
      body: { name: "ci", log_bodies: true },
    });
    expect(
      checkKeyForm({
        ...form,
        budget: "50",
        period: "day",
        ttl: "30d",
        models: "demo-small",
        logBodies: false,
      }),
    ).toEqual({
      ok: true,
      body: {
        name: "ci",
        budget: "50",
        period: "day",
        ttl: "30d",
        models: ["demo-small"],
        log_bodies: false,
      },
    });
  });

  it("names every field that is wrong", () => {
    expect(checkKeyForm({ ...form, name: "", budget: "-1", ttl: "14m", models: "x".repeat(201) })).toEqual({
      ok: false,
      problems: {
        name: "v.name.length",
        budget: "v.amount.format",
        ttl: "v.ttl.min",
        models: "v.models.name",
      },
    });
  });
});

describe("the edit form", () => {
  const key: KeyState = {
    name: "ci",
    budget: 12.5,
    period: "month",
    allowed_models: ["demo-small"],
    log_bodies: true,
  };

  it("starts from the key and sends only what changed", () => {
    const form = keyFormOf(key);
    expect(form).toEqual({
      name: "ci",
      budget: "12.5",
      period: "month",
      models: "demo-small",
      logBodies: true,
    });
    expect(checkKeyChanges(key, form)).toEqual({ ok: false, problems: {}, nothing: true });
    expect(checkKeyChanges(key, { ...form, budget: "12.50" })).toMatchObject({ nothing: true });
    expect(checkKeyChanges(key, { ...form, name: "cd", period: "week" })).toEqual({
      ok: true,
      body: { name: "cd", period: "week" },
    });
  });

  it("removes the budget or the model list when emptied", () => {
    const form = keyFormOf(key);
    expect(checkKeyChanges(key, { ...form, budget: "", models: "" })).toEqual({
      ok: true,
      body: { budget: null, models: null },
    });
    expect(
      checkKeyChanges({ ...key, budget: null }, { ...keyFormOf({ ...key, budget: null }), budget: "5" }),
    ).toEqual({ ok: true, body: { budget: "5" } });
  });

  it("refuses a wrong value", () => {
    expect(checkKeyChanges(key, { ...keyFormOf(key), budget: "0" })).toEqual({
      ok: false,
      problems: { budget: "v.amount.positive" },
    });
  });
});
