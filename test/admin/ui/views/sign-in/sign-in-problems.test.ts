// Sign-in's failures as sentences a person can act on, in both languages: the provider flow's codes, the
// password form's refusals with the wait, the new password's checks and why the server refused one.

import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../../src/admin/ui/api/client.js";
import { translate } from "../../../../../src/admin/ui/i18n/lookup.js";
import {
  linkProblem,
  newPasswordProblems,
  passwordProblem,
  providerProblem,
  waitWords,
  weakPasswordReason,
} from "../../../../../src/admin/ui/views/sign-in/sign-in-problems.js";

describe("a provider's failure", () => {
  it("names the provider and says what to do, for each code the gateway sends back", () => {
    const say = (code: string) => {
      const { key, values } = providerProblem(code, "Keycloak");
      return translate("en", key, values);
    };
    expect(say("user_disabled")).toBe(
      "Your user is disabled here. Ask an operator of the gateway to enable it.",
    );
    expect(say("identity_provider_unavailable")).toContain("Keycloak cannot be reached right now");
    expect(say("session_expired")).toContain("took too long or was already used");
    expect(say("csrf_refused")).toContain("started in another browser");
    expect(say("sign_in_failed")).toContain("Keycloak did not sign you in");
    expect(say("provider_link_required")).toContain(
      "Sign in as before (with your password), then link Keycloak",
    );
    expect(say("forbidden")).toContain("This Keycloak identity is already linked to another person");
    expect(say("internal_error")).toBe("Signing in with Keycloak failed (internal_error). Try again.");
  });
});

describe("the password form's refusals", () => {
  it("are sentences, with the wait from Retry-After in the reader's language", () => {
    expect(passwordProblem(new ApiError(401, "sign_in_failed", "x"), "en")).toBe(
      "The e-mail or the password is wrong. Check both and try again.",
    );
    expect(passwordProblem(new ApiError(429, "too_many_attempts", "x", 120), "en")).toBe(
      "Too many failed attempts. Wait 2 min, then try again.",
    );
    expect(passwordProblem(new ApiError(429, "too_many_attempts", "x", 45), "ru")).toBe(
      "Слишком много неудачных попыток. Подождите 45 с и попробуйте снова.",
    );
    expect(passwordProblem(new ApiError(429, "too_many_attempts", "x"), "en")).toContain("Wait a while");
    expect(passwordProblem(new ApiError(403, "user_disabled", "x"), "en")).toContain("disabled");
    // Not the person's to fix: shown as an error instead.
    expect(passwordProblem(new ApiError(0, "network_error", "x"), "en")).toBeNull();
    expect(passwordProblem(new Error("x"), "en")).toBeNull();
  });

  it("round a wait up to whole minutes from a minute on", () => {
    expect(waitWords("en", 0)).toBe("1 s");
    expect(waitWords("en", 59)).toBe("59 s");
    expect(waitWords("en", 61)).toBe("2 min");
  });
});

describe("a new password", () => {
  it("is checked for the length rule and the repetition before it is sent", () => {
    expect(newPasswordProblems({ password: "short", repeat: "short" }, 12)).toEqual({
      password: "password.tooShort",
    });
    expect(newPasswordProblems({ password: "long enough pass", repeat: "long enough pas" }, 12)).toEqual({
      repeat: "password.mismatch",
    });
    expect(newPasswordProblems({ password: "long enough pass", repeat: "long enough pass" }, 12)).toEqual({});
    // Characters, not UTF-16 units, as the server counts.
    expect(newPasswordProblems({ password: "🔑".repeat(12), repeat: "🔑".repeat(12) }, 12)).toEqual({});
  });

  it("refused by the server as weak is explained by what was sent", () => {
    expect(weakPasswordReason("short", 12)).toBe("password.tooShort");
    expect(weakPasswordReason("x".repeat(1025), 12)).toBe("password.tooLong");
    expect(weakPasswordReason("qwerty123456", 12)).toBe("password.tooCommon");
  });

  it("links' refusals are named", () => {
    expect(linkProblem(new ApiError(400, "invitation_invalid", "x"))).toBe("invite.invalid");
    expect(linkProblem(new ApiError(400, "password_link_invalid", "x"))).toBe("setPassword.invalid");
    expect(linkProblem(new ApiError(404, "not_found", "x"))).toBe("setPassword.off");
    expect(linkProblem(new ApiError(500, "internal_error", "x"))).toBeNull();
  });
});
