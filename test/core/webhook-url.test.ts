import { describe, expect, it } from "vitest";
import { urlOrigin, webhookUrlProblem } from "../../src/core/webhook-url.js";

describe("webhook URLs", () => {
  it("are https:// only, unless http is allowed", () => {
    expect(webhookUrlProblem("https://hooks.example.com/t?x=1", false)).toBeNull();
    expect(webhookUrlProblem("http://hooks.internal/t", false)).toBe(
      "must be an https:// URL (http:// needs alerts.allowHttp)",
    );
    expect(webhookUrlProblem("http://hooks.internal/t", true)).toBeNull();
    expect(webhookUrlProblem("ftp://hooks.example.com", true)).toBe("must be an http:// or https:// URL");
    expect(webhookUrlProblem("not a url", false)).toMatch(/^must be an https:\/\/ URL/);
  });

  it("carry no credentials, no fragment, and at most 2048 characters", () => {
    expect(webhookUrlProblem("https://user:pw@hooks.example.com/", false)).toBe(
      "must not contain credentials",
    );
    expect(webhookUrlProblem("https://hooks.example.com/#x", false)).toBe("must not contain a fragment (#…)");
    expect(webhookUrlProblem(`https://hooks.example.com/${"a".repeat(2048)}`, false)).toBe(
      "must be at most 2048 characters",
    );
  });

  it("are shown in logs by their origin only, never their path where a token may be", () => {
    expect(urlOrigin("https://hooks.slack.com/services/T000/B000/secret-token")).toBe(
      "https://hooks.slack.com",
    );
    expect(urlOrigin("http://127.0.0.1:8080/x")).toBe("http://127.0.0.1:8080");
  });
});
