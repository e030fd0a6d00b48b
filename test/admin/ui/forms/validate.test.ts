// The page's form checks: the rules are the server's own (imported), so these tests cover what the page adds —
// which message each verdict shows, empty fields, splitting the models field, and the request bodies built.

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
} from "../../../../src/admin/ui/forms/validate.js";
import { validateLimit, validateModels } from "../../../../src/core/validate.js";
import { windowsInput } from "../../../../src/services/budgets.js";

describe("lifetimes", () => {
  it("show the message of each of the server's verdicts", () => {
    expect(parseLifetime(" 2h ")).toEqual({ ok: true, value: 2 * 3600_000 });
    expect(parseLifetime("never")).toEqual({ ok: true, value: null });
    expect(parseLifetime("15 minutes")).toEqual({ ok: false, problem: "v.ttl.format" });
    expect(parseLifetime("30M")).toEqual({ ok: false, problem: "v.ttl.format" });
    expect(parseLifetime("14m")).toEqual({ ok: false, problem: "v.ttl.min" });
    expect(parseLifetime("10000w")).toEqual({ ok: false, problem: "v.ttl.max" });
  });

  it("leave the field empty for a key that never expires, and send the trimmed text otherwise", () => {
    expect(checkTtl("")).toEqual({ ok: true, value: null });
    expect(checkTtl("  ")).toEqual({ ok: true, value: null });
    expect(checkTtl(" 30d ")).toEqual({ ok: true, value: "30d" });
    expect(checkTtl("never")).toEqual({ ok: true, value: "never" });
    expect(checkTtl("1y")).toEqual({ ok: false, problem: "v.ttl.format" });
  });
});

describe("amounts", () => {
  it("send the trimmed decimal text, exactly as typed", () => {
    expect(checkAmount(" 7 ")).toEqual({ ok: true, value: "7" });
    expect(checkAmount("00.10")).toEqual({ ok: true, value: "00.10" });
    expect(checkAmount("999999999.999999")).toEqual({ ok: true, value: "999999999.999999" });
  });

  it("show the format message for what the server cannot read, and refuse zero where it must be positive", () => {
    for (const text of ["-1", "1e3", "1,5", "1.0000001", "1000000000", ""]) {
      expect(checkAmount(text), text).toEqual({ ok: false, problem: "v.amount.format" });
    }
    expect(checkAmount("0.000000")).toEqual({ ok: false, problem: "v.amount.positive" });
    expect(checkAmount("0", false)).toEqual({ ok: true, value: "0" }); // an opening balance may be zero
  });

  it("leave the budget empty for no budget", () => {
    expect(checkBudget(" ")).toEqual({ ok: true, value: null });
    expect(checkBudget("0")).toEqual({ ok: false, problem: "v.amount.positive" });
  });
});

describe("names and account ids", () => {
  it("are trimmed and show the message of each verdict", () => {
    expect(checkName("  prod  ")).toEqual({ ok: true, value: "prod" });
    expect(checkName("   ")).toEqual({ ok: false, problem: "v.name.length" });
    expect(checkName("bad\nname")).toEqual({ ok: false, problem: "v.name.control" });
    expect(checkAccountId(" acme ")).toEqual({ ok: true, value: "acme" });
    expect(checkAccountId("Acme")).toEqual({ ok: false, problem: "v.accountId" });
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

  it("show the message of each verdict", () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `m${i}`);
    expect(checkModels(hundred.join(","))).toMatchObject({ ok: true });
    expect(checkModels([...hundred, "one-more"].join(","))).toEqual({ ok: false, problem: "v.models.count" });
    expect(checkModels("x".repeat(201))).toEqual({ ok: false, problem: "v.models.name" });
    expect(checkModels("a\tb")).toEqual({ ok: false, problem: "v.models.name" });
  });

  it("send what the server accepts", () => {
    const checked = checkModels("a, b ,a\nc");
    expect(checked.ok && validateModels(checked.value)).toEqual(["a", "b", "c"]);
  });
});

describe("the create-key form", () => {
  const none = { day: "", week: "", month: "" };
  const form = {
    name: "ci",
    budgets: none,
    ttl: "",
    models: "",
    logBodies: true,
    rpm: "",
    tpm: "",
    maxParallel: "",
  };

  it("sends only what was given: the windows typed, day to month", () => {
    expect(checkKeyForm(form)).toEqual({ ok: true, body: { name: "ci", log_bodies: true } });
    expect(
      checkKeyForm({
        ...form,
        budgets: { day: " 50 ", week: "", month: "2000" },
        ttl: "30d",
        models: "demo-small",
        logBodies: false,
      }),
    ).toEqual({
      ok: true,
      body: {
        name: "ci",
        budgets: [
          { period: "day", amount: "50" },
          { period: "month", amount: "2000" },
        ],
        ttl: "30d",
        models: ["demo-small"],
        log_bodies: false,
      },
    });
  });

  it("sends windows the server reads as typed", () => {
    const checked = checkKeyForm({ ...form, budgets: { day: "0.5", week: "12.25", month: "1000" } });
    expect(checked.ok && windowsInput(checked.body.budgets)).toEqual([
      { period: "day", budget: 500_000 },
      { period: "week", budget: 12_250_000 },
      { period: "month", budget: 1_000_000_000 },
    ]);
  });

  it("names every field that is wrong", () => {
    expect(
      checkKeyForm({
        ...form,
        name: "",
        budgets: { day: "-1", week: "5", month: "0" },
        ttl: "14m",
        models: "x".repeat(201),
        rpm: "0",
        tpm: "1.5",
        maxParallel: "100001",
      }),
    ).toEqual({
      ok: false,
      problems: {
        name: "v.name.length",
        "budget.day": "v.amount.format",
        "budget.month": "v.amount.positive",
        ttl: "v.ttl.min",
        models: "v.models.name",
        rpm: "v.limit.rpm",
        tpm: "v.limit.tpm",
        maxParallel: "v.limit.max_parallel",
      },
    });
  });

  it("sends the limits given, as numbers the server accepts", () => {
    const checked = checkKeyForm({ ...form, rpm: " 60 ", tpm: "", maxParallel: "100000" });
    expect(checked).toEqual({
      ok: true,
      body: { name: "ci", log_bodies: true, rpm: 60, max_parallel: 100000 },
    });
    if (checked.ok) {
      expect(validateLimit(checked.body.rpm, "rpm")).toBe(60);
      expect(validateLimit(checked.body.max_parallel, "max_parallel")).toBe(100000);
    }
  });
});

describe("the edit form", () => {
  // Its first window is the month's: /v1/key reports it as `budget`.
  const key: KeyState = {
    name: "ci",
    budgets: [
      { period: "month", amount: 12.5 },
      { period: "day", amount: 1 },
    ],
    allowed_models: ["demo-small"],
    log_bodies: true,
    limits: { rpm: 60, tpm: null, max_parallel: null },
  };

  it("starts from the key and sends only what changed", () => {
    const form = keyFormOf(key);
    expect(form).toEqual({
      name: "ci",
      budgets: { day: "1", week: "", month: "12.5" },
      models: "demo-small",
      logBodies: true,
      rpm: "60",
      tpm: "",
      maxParallel: "",
    });
    expect(checkKeyChanges(key, form)).toEqual({ ok: false, problems: {}, nothing: true });
    expect(checkKeyChanges(key, { ...form, budgets: { ...form.budgets, month: "12.50" } })).toMatchObject({
      nothing: true,
    });
    expect(checkKeyChanges(key, { ...form, name: "cd" })).toEqual({ ok: true, body: { name: "cd" } });
  });

  it("sends every window when one changes, the key's own first, so that its first window stays first", () => {
    const form = keyFormOf(key);
    expect(checkKeyChanges(key, { ...form, budgets: { day: "2", week: "30", month: "12.5" } })).toEqual({
      ok: true,
      body: {
        budgets: [
          { period: "month", amount: "12.5" },
          { period: "day", amount: "2" },
          { period: "week", amount: "30" },
        ],
      },
    });
    expect(checkKeyChanges(key, { ...form, budgets: { ...form.budgets, month: "" } })).toEqual({
      ok: true,
      body: { budgets: [{ period: "day", amount: "1" }] },
    });
  });

  it("removes every window, or the model list, when emptied", () => {
    const form = keyFormOf(key);
    expect(checkKeyChanges(key, { ...form, budgets: { day: "", week: "", month: "" }, models: "" })).toEqual({
      ok: true,
      body: { budgets: [], models: null },
    });
    const unlimited = { ...key, budgets: [] };
    expect(
      checkKeyChanges(unlimited, { ...keyFormOf(unlimited), budgets: { day: "", week: "5", month: "" } }),
    ).toEqual({ ok: true, body: { budgets: [{ period: "week", amount: "5" }] } });
  });

  it("sets, changes and removes limits, sending only those that changed", () => {
    const form = keyFormOf(key);
    expect(checkKeyChanges(key, { ...form, rpm: "", tpm: "1000" })).toEqual({
      ok: true,
      body: { rpm: null, tpm: 1000 },
    });
    expect(checkKeyChanges(key, { ...form, rpm: "060" })).toMatchObject({ nothing: true });
    expect(checkKeyChanges(key, { ...form, maxParallel: "-2" })).toEqual({
      ok: false,
      problems: { maxParallel: "v.limit.max_parallel" },
    });
  });

  it("refuses a wrong value", () => {
    const form = keyFormOf(key);
    expect(checkKeyChanges(key, { ...form, budgets: { ...form.budgets, week: "0" } })).toEqual({
      ok: false,
      problems: { "budget.week": "v.amount.positive" },
    });
  });
});
