import { describe, expect, it } from "vitest";
import {
  isAccountId,
  isModelName,
  nameProblem,
  validateAccountId,
  validateKeyId,
  validateModels,
  validateName,
} from "../../src/core/validate.js";

describe("names", () => {
  it("are trimmed, 1 to 200 characters, without control characters", () => {
    expect(validateName("  prod  ")).toBe("prod");
    expect(validateName("x".repeat(200))).toHaveLength(200);
    expect(validateName("Ключ для прода 🚀")).toBe("Ключ для прода 🚀");
    expect(() => validateName("   ")).toThrow(/^name must be 1 to 200 characters long$/);
    expect(() => validateName("x".repeat(201), "account name")).toThrow(/^account name must be 1 to 200/);
    expect(() => validateName(7)).toThrow(/^name must be a string; got 7$/);
  });

  it.each(["bad\nname", "tab\there", "bell\u0007", "sep\u2028arator", "par\u2029agraph", "c1\u0085"])(
    "refuse %j: control characters would corrupt terminals and log lines",
    (name) => {
      expect(nameProblem(name)).toBe("control");
      expect(() => validateName(name)).toThrow(/^name must not contain control characters$/);
    },
  );

  it("report their problem by name for the dashboard, which words it in the page's language", () => {
    expect(nameProblem("")).toBe("length");
    expect(nameProblem("x".repeat(201))).toBe("length");
    expect(nameProblem("ok")).toBeNull();
  });
});

describe("models", () => {
  it("are trimmed and deduplicated, and at least one", () => {
    expect(validateModels([" a", "b ", "a", "c"])).toEqual(["a", "b", "c"]);
    expect(() => validateModels([])).toThrow(/at least one model \(omit it to allow all models\)/);
    expect(() => validateModels("a,b")).toThrow(/^models must be a list of model names; got "a,b"$/);
  });

  it("are at most 100 names of 1 to 200 printable characters", () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `m${i}`);
    expect(validateModels(hundred)).toHaveLength(100);
    expect(() => validateModels([...hundred, "one-more"])).toThrow(/at most 100 models/);
    expect(isModelName("x".repeat(200))).toBe(true);
    for (const bad of ["x".repeat(201), "a\tb", "", 3]) {
      expect(isModelName(bad), JSON.stringify(bad)).toBe(false);
      expect(() => validateModels([bad])).toThrow(/models must hold names of 1 to 200 printable characters/);
    }
  });
});

describe("ids", () => {
  it("accept account ids of lowercase letters, digits, '-' and '_', starting with a letter or digit", () => {
    for (const id of ["acme", "a", "team-7_x", "0day", "x".repeat(64)]) {
      expect(isAccountId(id), id).toBe(true);
      expect(validateAccountId(id)).toBe(id);
    }
    for (const bad of ["", "Acme", "-x", "_x", "a b", "x".repeat(65), "ключ"]) {
      expect(isAccountId(bad), bad).toBe(false);
      expect(() => validateAccountId(bad)).toThrow(/^account id must be 1 to 64 characters/);
    }
    expect(() => validateAccountId(undefined)).toThrow(/got nothing$/);
  });

  it("accept key ids of key_ and 20 lowercase letters or digits, and cut a long bad one in the message", () => {
    expect(validateKeyId("key_0123456789abcdefghij")).toBe("key_0123456789abcdefghij");
    expect(() => validateKeyId("key_0123456789ABCDEFGHIJ")).toThrow(/^key id must look like key_/);
    expect(() => validateKeyId("x".repeat(200))).toThrow(/got "x{76}\.\.\.$/);
  });
});
